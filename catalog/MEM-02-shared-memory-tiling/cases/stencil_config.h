// Build settings for shared_tile_enabled_by_local_header.cu (read as its include).
#pragma once
#define USE_SHARED_TILE 1
#define RADIUS 3
#define BLOCK 256
