// The memory floor of bench-accounting's scaling points: the random cache lines one host page
// write touches, and nothing else of an FTL. Per host page: the L2P read-modify-write of a random
// logical page (its line asked for 16 writes ahead, the old page's valid-bit word 4 ahead), the
// old page's valid bit cleared, the new page's OOB and valid bit written at a moving frontier;
// then GC moves: each writes the L2P entry of a random logical page (asked for 16 moves ahead),
// the OOB and valid bit at the frontier. No decisions: the addresses are random, so the WAF is
// whatever -g says.
//
//   floor -n PAGES [-g MOVES_X10] [-w WORK] [-b BURST] [-p] [-a AHEAD] [-l] [-i ITERS]
//     -n  logical pages (8 GiB: 2097152, 128 GiB: 33554432)
//     -g  GC moves per host page, times 10 (54: bench-accounting's WAF 6.4)
//     -w  independent ALU work per host page (steps of a multiply-xorshift chain), standing in
//         for the simulator's own instructions
//     -b  moves per victim: 0 spreads the moves evenly over the host pages; 216 moves them in
//         one burst every 216 / (g/10) host pages, as accounting-mode GC does
//     -p  with -b: ask for the next burst's L2P lines (prefetcht2) spread over the host pages
//         before it
//     -a  GC asks for a move's L2P line this many moves ahead (default 16)
//     -l  ... into L2 (prefetcht1) rather than L1 (prefetcht0)
// Prints ns per host page of the loop (tables built and touched before the clock starts).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <xmmintrin.h>

static uint64_t rng = 88172645463325252ull;
static inline uint64_t next(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

// GC's request for a move's L2P line: into L1 (prefetcht0) or, with -l, into L2 (prefetcht1).
static inline void ask(const void *p, int l2) {
    if (l2) _mm_prefetch((const char *)p, _MM_HINT_T1);
    else _mm_prefetch((const char *)p, _MM_HINT_T0);
}

static void *table(size_t bytes) {
    size_t huge = (size_t)1 << 21, len = (bytes + huge - 1) & ~(huge - 1);
    void *p = aligned_alloc(huge, len);
    if (!p) { perror("aligned_alloc"); exit(1); }
    madvise(p, len, MADV_HUGEPAGE);
    memset(p, 0, len);
    return p;
}

int main(int argc, char **argv) {
    uint64_t n = 0, iters = 20000000;
    int g10 = 54, work = 0, burst = 0, warm = 0, ahead = 16, l2 = 0, c;
    while ((c = getopt(argc, argv, "n:g:w:b:pa:li:")) != -1) {
        switch (c) {
        case 'n': n = strtoull(optarg, 0, 10); break;
        case 'g': g10 = atoi(optarg); break;
        case 'w': work = atoi(optarg); break;
        case 'b': burst = atoi(optarg); break;
        case 'p': warm = 1; break;
        case 'a': ahead = atoi(optarg); break;
        case 'l': l2 = 1; break;
        case 'i': iters = strtoull(optarg, 0, 10); break;
        default: fprintf(stderr, "usage: floor -n PAGES [-g MOVES_X10] [-w WORK] [-b BURST] [-p] [-a AHEAD] [-l] [-i ITERS]\n"); return 2;
        }
    }
    if (n < 1024 || n > UINT32_MAX / 2 || burst < 0 || burst > 4096 || g10 < 0 || ahead < 1 || ahead > 63) {
        fprintf(stderr, "floor: -n between 1024 and 2^31, -b between 0 and 4096, -g >= 0, -a between 1 and 63\n");
        return 2;
    }
    uint64_t phys = n + n / 8;
    uint32_t *l2p = table(n * 4), *oob = table(phys * 4);
    uint64_t *valid = table(phys / 8 + 64);
    for (uint64_t i = 0; i < n; i++) { l2p[i] = (uint32_t)i; oob[i] = (uint32_t)i; }
    enum { AHEAD = 16, RING = 64 };
    uint32_t host[RING], moves[RING];
    for (int i = 0; i < RING; i++) { host[i] = next() % n; moves[i] = next() % n; }
    uint32_t *bursts = malloc(2 * (size_t)(burst + 1) * 4);
    for (int i = 0; i < 2 * burst; i++) bursts[i] = next() % n;
    uint64_t frontier = 0, w = 1, credit = 0, h = 0, m = 0, warmed = 0;
    // Host pages between bursts: burst / (g10 / 10).
    uint64_t period = burst && g10 ? (uint64_t)burst * 10 / g10 : 0, cur = 0;
    uint64_t share = period ? (burst + period - 1) / period : 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint64_t it = 0; it < iters; it++) {
        for (int q = 0; q < work; q++) { w = w * 6364136223846793005ull + 1442695040888963407ull; w ^= w >> 29; }
        uint32_t lpn = host[h % RING], far = next() % n;
        host[(h + AHEAD) % RING] = far;
        __builtin_prefetch(&l2p[far]);
        __builtin_prefetch(&valid[l2p[host[(h + 4) % RING]] >> 6]);
        h++;
        uint32_t old = l2p[lpn];
        valid[old >> 6] &= ~(1ull << (old & 63));
        uint32_t ppn = (uint32_t)(frontier++ % phys);
        l2p[lpn] = ppn; oob[ppn] = lpn; valid[ppn >> 6] |= 1ull << (ppn & 63);
        if (!period) {
            for (credit += g10; credit >= 10; credit -= 10) {
                uint32_t g = moves[m % RING], gfar = next() % n;
                moves[(m + ahead) % RING] = gfar;
                ask(&l2p[gfar], l2);
                m++;
                uint32_t dst = (uint32_t)(frontier++ % phys);
                l2p[g] = dst; oob[dst] = g; valid[dst >> 6] |= 1ull << (dst & 63);
            }
            continue;
        }
        uint32_t *now = bursts + cur * burst, *after = bursts + (cur ^ 1) * burst;
        if (warm) // the next burst's lines, an even share per host page
            for (uint64_t k = 0; k < share && warmed < (uint64_t)burst; k++)
                _mm_prefetch((const char *)&l2p[after[warmed++]], _MM_HINT_T2);
        if (it % period == period - 1) {
            for (int k = 0; k < ahead && k < burst; k++) ask(&l2p[now[k]], l2);
            for (int k = 0; k < burst; k++) {
                if (k + ahead < burst) ask(&l2p[now[k + ahead]], l2);
                uint32_t dst = (uint32_t)(frontier++ % phys);
                l2p[now[k]] = dst; oob[dst] = now[k]; valid[dst >> 6] |= 1ull << (dst & 63);
            }
            for (int k = 0; k < burst; k++) now[k] = next() % n;
            cur ^= 1;
            warmed = 0;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / iters;
    printf("pages %llu moves/host %.1f work %d burst %d warm %d ahead %d%s: %.1f ns / host page (check %u)\n",
           (unsigned long long)n, g10 / 10.0, work, burst, warm, ahead, l2 ? " into L2" : "", ns,
           (unsigned)(l2p[n / 3] + (w & 1)));
    return 0;
}
