// Statement macros that frameworks define in headers a file rarely brings along, with the
// definitions those headers give them. The model reads one only where the file uses it and
// neither the file, nor a header found, nor -D defines it (preproc.library_defines).
// Caffe (caffe/util/device_alternate.hpp), PyTorch (ATen/cuda/detail/KernelUtils.h), MXNet,
// PaddlePaddle: a grid-stride loop over n elements.
#define CUDA_KERNEL_LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
#define CUDA_KERNEL_LOOP_TYPE(i, n, index_type) for (index_type i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
// detectron2, mmcv, torchvision, maskrcnn-benchmark
#define CUDA_1D_KERNEL_LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
// TensorFlow (gpu_kernel_helper.h) spells it as a range over GpuGridRangeX
#define GPU_1D_KERNEL_LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
// ThunderSVM and ThunderGBM (thundersvm/util/common.h): the same loop, and a launch on the
// library's NUM_BLOCKS x BLOCK_SIZE grid
#define KERNEL_LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
#define SAFE_KERNEL_LAUNCH(kernel_name, ...) kernel_name<<<NUM_BLOCKS, BLOCK_SIZE>>>(__VA_ARGS__)
// HIP (hip/hip_runtime.h), in code written against the HIP API and compiled for CUDA (HOOMD-blue)
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define hipLaunchKernelGGL(kernel, grid, block, smem, stream, ...) kernel<<<grid, block, smem, stream>>>(__VA_ARGS__)
#define HIP_KERNEL_NAME(...) __VA_ARGS__
