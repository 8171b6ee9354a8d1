// Case: a kernel takes a batch as a struct by value; a helper builds each item (a struct of
// pointers into the batch) and a device function reads the item's members. Those members
// still point to global memory, so their stride-1 accesses count.
struct Batch {
    float* vals;
    int rows;
    int items;
};

struct Item {
    float* vals;
    int rows;
};

__device__ Item item_of(const Batch& b, int i) {
    return Item{b.vals + (size_t)i * b.rows, b.rows};
}

__device__ void halve(const Item& it, float* out) {
    for (int r = threadIdx.x; r < it.rows; r += blockDim.x)
        out[r] = 0.5f * it.vals[r];  // expect: MEM-01
}

__global__ void halve_batch(Batch in, Batch out) {
    for (int b = blockIdx.x; b < in.items; b += gridDim.x) {
        const auto src = item_of(in, b);
        const auto dst = item_of(out, b);
        halve(src, dst.vals);
    }
}

extern "C" void solution_compute(float* in, float* out, int rows, int items) {
    halve_batch<<<items, 128>>>(Batch{in, rows, items}, Batch{out, rows, items});
}
