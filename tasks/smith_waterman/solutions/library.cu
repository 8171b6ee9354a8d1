// Smith-Waterman local alignment scores with Thrust. Device vectors hold the inputs; the
// sequence byte counts and the per-pair scratch-row offsets come from a transform_reduce and
// an exclusive_scan on the device; a thrust::transform over pair indices runs the one-row DP of
// each pair (one pair per element) into the score vector.
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/scan.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/tuple.h>
#include <cstdio>
#include <exception>

namespace {

struct end_of {
    __host__ __device__ long long operator()(const thrust::tuple<int, int>& t) const
    {
        return (long long)thrust::get<0>(t) + thrust::get<1>(t);
    }
};

struct row_length {
    __host__ __device__ long long operator()(int lb) const { return (long long)lb + 1; }
};

struct max_ll {
    __host__ __device__ long long operator()(long long x, long long y) const
    {
        return x > y ? x : y;
    }
};

struct align_pair {
    const char* a_seqs;
    const int* a_off;
    const int* a_len;
    const char* b_seqs;
    const int* b_off;
    const int* b_len;
    const long long* row_start;
    int* rows;
    int match, mismatch, gap;

    __device__ int operator()(int p) const
    {
        const char* a = a_seqs + a_off[p];
        const char* b = b_seqs + b_off[p];
        const int la = a_len[p], lb = b_len[p];
        int* row = rows + row_start[p];
        int best = 0;
        for (int j = 0; j <= lb; j++) row[j] = 0;
        for (int i = 1; i <= la; i++) {
            int diag = 0, left = 0;
            const char ai = a[i - 1];
            for (int j = 1; j <= lb; j++) {
                const int up = row[j];
                int h = diag + (ai == b[j - 1] ? match : mismatch);
                h = max(h, up - gap);
                h = max(h, left - gap);
                h = max(h, 0);
                diag = up;
                row[j] = h;
                left = h;
                best = max(best, h);
            }
        }
        return best;
    }
};

}  // namespace

extern "C" void solution_compute(int num_pairs, const char* a_seqs, const int* a_off,
                                 const int* a_len, const char* b_seqs, const int* b_off,
                                 const int* b_len, int match, int mismatch, int gap, int* scores)
{
    if (num_pairs <= 0) return;
    try {
        thrust::device_vector<int> d_a_off(a_off, a_off + num_pairs);
        thrust::device_vector<int> d_a_len(a_len, a_len + num_pairs);
        thrust::device_vector<int> d_b_off(b_off, b_off + num_pairs);
        thrust::device_vector<int> d_b_len(b_len, b_len + num_pairs);

        // Bytes of sequence data actually referenced by the pairs.
        long long a_bytes = thrust::transform_reduce(
            thrust::make_zip_iterator(thrust::make_tuple(d_a_off.begin(), d_a_len.begin())),
            thrust::make_zip_iterator(thrust::make_tuple(d_a_off.end(), d_a_len.end())),
            end_of(), 0LL, max_ll());
        long long b_bytes = thrust::transform_reduce(
            thrust::make_zip_iterator(thrust::make_tuple(d_b_off.begin(), d_b_len.begin())),
            thrust::make_zip_iterator(thrust::make_tuple(d_b_off.end(), d_b_len.end())),
            end_of(), 0LL, max_ll());
        thrust::device_vector<char> d_a(a_seqs, a_seqs + a_bytes);
        thrust::device_vector<char> d_b(b_seqs, b_seqs + b_bytes);

        // One scratch row of b_len + 1 cells per pair, packed back to back.
        thrust::device_vector<long long> row_start(num_pairs);
        auto lengths = thrust::make_transform_iterator(d_b_len.begin(), row_length());
        thrust::exclusive_scan(lengths, lengths + num_pairs, row_start.begin(), 0LL);
        long long total_cells = row_start.back() + (long long)b_len[num_pairs - 1] + 1;
        thrust::device_vector<int> rows(total_cells);

        align_pair op{thrust::raw_pointer_cast(d_a.data()),
                      thrust::raw_pointer_cast(d_a_off.data()),
                      thrust::raw_pointer_cast(d_a_len.data()),
                      thrust::raw_pointer_cast(d_b.data()),
                      thrust::raw_pointer_cast(d_b_off.data()),
                      thrust::raw_pointer_cast(d_b_len.data()),
                      thrust::raw_pointer_cast(row_start.data()),
                      thrust::raw_pointer_cast(rows.data()),
                      match, mismatch, gap};
        thrust::device_vector<int> d_scores(num_pairs);
        thrust::transform(thrust::counting_iterator<int>(0),
                          thrust::counting_iterator<int>(num_pairs), d_scores.begin(), op);
        thrust::copy(d_scores.begin(), d_scores.end(), scores);
    } catch (const std::exception& e) {
        fprintf(stderr, "smith_waterman (thrust): %s\n", e.what());
    }
}
