// cold-code.cu - a probe, not a test: how long a CTA takes to run ~19 KB of straight-line code (big()) when
// that code is cold, in a persistent kernel after a grid barrier (as @latch_main runs an interval's body)
// against a kernel launched for it (as the staged control does). Cold means: other code run since (evicts the
// SM's instruction cache) and data traffic since (evicts the code from L2), each varied; with evict_first, the
// data traffic carries an L2 evict_first policy. Round twenty-six found that the first tile of an interval
// takes 1-6 us longer in @latch_main than in the staged kernels, while later tiles of the same body do not
// (docs/benchmarks.md, round twenty-six, has the figures). A device function pointer is an index into a
// constant bank of the kernel, not the code's address, so code cannot be prefetched with prefetch.global.
// On the GPU machine:
//   nvcc -O3 -arch=sm_90a -o /tmp/cold-code bench/probes/cold-code.cu && /tmp/cold-code
#include <cooperative_groups.h>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstdlib>
namespace cg = cooperative_groups;

#define FMAS 1200
template <int K> __device__ __noinline__ float body(float x) {
#pragma unroll
  for (int i = 0; i < FMAS; ++i)
    x = fmaf(x, 1.0001f + (float)(i + K * FMAS) * 1e-7f, 0.5f * (float)i + K);
  return x;
}
__device__ __noinline__ float big(float x) {
#pragma unroll
  for (int i = 0; i < FMAS; ++i)
    x = fmaf(x, 1.0001f + (float)i * 1e-7f, 0.5f * (float)i);
  return x;
}


// Runs `bodies` (0..8) other bodies of 19 KB of code each: evicts big()'s code from the SM's instruction
// caches once they hold less than that.
__device__ float thrash(float x, int bodies) {
  if (bodies > 0) x = body<1>(x);
  if (bodies > 1) x = body<2>(x);
  if (bodies > 2) x = body<3>(x);
  if (bodies > 3) x = body<4>(x);
  if (bodies > 4) x = body<5>(x);
  if (bodies > 5) x = body<6>(x);
  if (bodies > 6) x = body<7>(x);
  if (bodies > 7) x = body<8>(x);
  return x;
}

// Makes x's computation finish before the next volatile asm (the timer read): big() has no side effects, so
// the compiler could otherwise move its call across the timer reads.
__device__ void done(float &x) { asm volatile("" : "+f"(x)::"memory"); }

__device__ unsigned long long now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}

// Runs big() on x by every thread of the CTA; returns the nanoseconds until all of them are done.
__device__ unsigned long long timed_big(float &x) {
  unsigned long long t0 = now();
  x = big(x);
  done(x);
  __syncthreads();
  return now() - t0;
}

// Streams `words` floats of `junk` (read and write): evicts L2 (50 MB) several times over; with `first`, the
// loads and stores carry an L2 evict_first policy (createpolicy + .L2::cache_hint).
__device__ void evict(float *junk, size_t words, bool first) {
  size_t n = (size_t)gridDim.x * blockDim.x;
  unsigned long long policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += n) {
    if (first) {
      float v;
      asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(v) : "l"(junk + i), "l"(policy));
      v = v * 0.5f + 1.0f;
      asm volatile("st.global.L2::cache_hint.f32 [%0], %1, %2;" ::"l"(junk + i), "f"(v), "l"(policy) : "memory");
    } else {
      junk[i] = junk[i] * 0.5f + 1.0f;
    }
  }
}

// Each rep: `words` of data traffic (0: none), `bodies` other bodies' code, big() once more when `again`, a
// grid barrier, then big() timed twice (the second time warm).
__global__ void persistent(float *junk, size_t words, float *sink, unsigned long long *times, int reps, int bodies,
                           int again, int first) {
  cg::grid_group grid = cg::this_grid();
  float x = threadIdx.x;
  for (int r = 0; r < reps; ++r) {
    evict(junk, words, first);
    x = thrash(x, bodies);
    if (again)
      x = big(x);
    grid.sync();
    unsigned long long cold = timed_big(x);
    grid.sync();
    unsigned long long warm = timed_big(x);
    if (threadIdx.x == 0) {
      times[((size_t)r * gridDim.x + blockIdx.x) * 2 + 0] = cold;
      times[((size_t)r * gridDim.x + blockIdx.x) * 2 + 1] = warm;
    }
    grid.sync();
  }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

__global__ void evict_kernel(float *junk, size_t words, float *sink) {
  evict(junk, words, false);
  sink[blockIdx.x * blockDim.x + threadIdx.x] = thrash(threadIdx.x, 8);
}

__global__ void big_kernel(float *sink, unsigned long long *times) {
  float x = threadIdx.x;
  unsigned long long time = timed_big(x);
  if (threadIdx.x == 0)
    times[blockIdx.x] = time;
  sink[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

static double median(std::vector<unsigned long long> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2] * 1e-3;
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int grid = 2 * sms, block = 256, reps = 20;
  size_t words = (size_t)64 << 20; // 256 MB
  float *junk, *sink;
  unsigned long long *times;
  cudaMalloc(&junk, words * 4);
  cudaMemset(junk, 0, words * 4);
  cudaMalloc(&sink, (size_t)grid * block * 4);
  cudaMalloc(&times, (size_t)reps * grid * 2 * 8);
  std::vector<unsigned long long> h((size_t)reps * grid * 2);
  auto run_persistent = [&](size_t traffic, int bodies, int again, int first) {
    void *args[] = {&junk, &traffic, &sink, &times, &reps, &bodies, &again, &first};
    cudaError_t e = cudaLaunchCooperativeKernel((void *)persistent, grid, block, args, 0, 0);
    if (e == cudaSuccess)
      e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      printf("persistent: %s\n", cudaGetErrorString(e));
      exit(1);
    }
    cudaMemcpy(h.data(), times, h.size() * 8, cudaMemcpyDeviceToHost);
    std::vector<unsigned long long> cold, warm;
    for (int r = 1; r < reps; ++r)
      for (int c = 0; c < grid; ++c) {
        cold.push_back(h[((size_t)r * grid + c) * 2]);
        warm.push_back(h[((size_t)r * grid + c) * 2 + 1]);
      }
    printf("persistent, %3zu MB of data traffic%s, %3d KB of other code%s: big() after the barrier %6.2f us, "
           "again %6.2f us\n", traffic * 4 >> 20, first ? " (L2 evict_first)" : "", bodies * FMAS * 16 / 1024,
           again ? ", big() just before" : "", median(cold), median(warm));
  };
  for (int bodies = 0; bodies <= 8; bodies += 2)
    run_persistent(0, bodies, 0, 0);
  run_persistent(words, 0, 0, 0);
  run_persistent(words, 8, 0, 0);
  run_persistent(words, 8, 1, 0);
  run_persistent(words, 8, 0, 1);
  run_persistent(words / 8, 8, 0, 0);
  run_persistent(words / 8, 8, 0, 1);
  std::vector<unsigned long long> cold, warm, hk(grid);
  for (int r = 0; r < reps; ++r) {
    evict_kernel<<<grid, block>>>(junk, words, sink);
    big_kernel<<<grid, block>>>(sink, times);
    cudaMemcpy(hk.data(), times, grid * 8, cudaMemcpyDeviceToHost);
    if (r)
      cold.insert(cold.end(), hk.begin(), hk.end());
    big_kernel<<<grid, block>>>(sink, times);
    cudaMemcpy(hk.data(), times, grid * 8, cudaMemcpyDeviceToHost);
    if (r)
      warm.insert(warm.end(), hk.begin(), hk.end());
  }
  printf("kernel launches: big() in a kernel of its own after the eviction kernel (256 MB, 152 KB of other code) "
         "%.2f us, launched again %.2f us\n", median(cold), median(warm));
  return 0;
}
