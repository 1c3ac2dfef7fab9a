/* pageftl.c: the speed limit of flashlab's `bench-accounting` run on this machine.
 *
 * A minimal page-mapped FTL with greedy GC doing the same work as
 * `flashlab run bench-accounting` (configs/bench-accounting.toml) and nothing else: no
 * request objects, no host layer, no buffer, no statistics beyond three counters, every
 * geometry constant known to the compiler. Its host page writes per second are what a plain C
 * loop reaches on this machine; flashlab's rate divided by it is how far flashlab is from it.
 *
 * Same work means the same decisions, so the same write amplification, bit for bit:
 *  - geometry: 8 channels x 4 chips x 1 die x 2 planes = 64 planes, 144 blocks of 256 pages of
 *    4 KiB per plane (9 GiB), 8 GiB logical (2^21 pages); GC unit = block, pool = plane;
 *  - host writes stripe round-robin over the planes (flashlab's `striping = "full"`),
 *    passing over a plane whose valid pages reached (144 - 3) * 256;
 *  - one write frontier (open block) per plane, shared by host writes and GC copies (greedy's
 *    single stream); a full block is sealed; free blocks per plane in a FIFO list;
 *  - GC (flashlab's default `classic` schedule, reserve 1): when a plane's frontier is full and
 *    the plane has <= 1 free block, one victim is collected before a new block is opened, and
 *    asked again until the plane has more than 1 free block or the frontier has room;
 *  - greedy victim: fewest valid pages, ties to the block that entered that valid count first
 *    (flashlab's per-plane buckets of FIFO lists); valid pages move in page order;
 *  - preconditioning: sequential fill of every logical page, then 2^21 uniform random
 *    overwrites drawn as flashlab draws them (Xoshiro256++ seeded by SplitMix64 from
 *    derive_seed(seed, "precondition"), rand 0.10's biased widening-multiply `random_range`);
 *  - measured phase: 4 x 2^21 host page writes from fio's zipf(0.9) sequence as flashlab's
 *    `FioZipf` draws it (Xoshiro256++ from derive_seed(seed, "workload"); the first 32-bit draw
 *    is the hash offset; rank by Gray et al.'s approximation, with the powering by
 *    multiplications flashlab uses for alpha = 10, falling back to pow() where it could round
 *    differently; item = (rank * 0x9e37fffffffc0001 + offset) mod n).
 *
 * Four ways to feed the FTL (-m):
 *  a  straightforward: draw one address, write it, repeat;
 *  b  batches: draw 16 addresses and prefetch their L2P entries, then write the 16 drawn two
 *     batches earlier;
 *  c  pre-generated: every address drawn before the clock starts; L2P prefetched 16 ahead;
 *  d  b plus a second prefetch stage one batch later: the old page's valid bit, its block's
 *     valid count and greedy links (what flashlab's Ftl::prefetch_update asks for).
 *
 * Build: see Makefile (-O2 -march=native -ffp-contract=off: no fused multiply-adds, so the
 * zipf arithmetic rounds as Rust's does). Usage: pageftl [-m a|b|c|d] [-v volume_ratio]
 * [-s seed] [-P] [-G] [-V]. -P: one pow() per zipf sample (fio's formula as written) instead of the
 * multiplications (same addresses, slower). -G: GC asks for its L2P entries into L2 (prefetcht1)
 * GC_AHEAD_L2 moves ahead, as flashlab does since session 40, instead of into L1 (prefetchw)
 * AHEAD ahead. -V: check every invariant after the run. Output:
 * one line of key=value pairs.
 */
#define _POSIX_C_SOURCE 199309L
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Geometry (configs/bench-accounting.toml). */
#define PLANES 64u            /* pools: 8 channels x 4 chips x 1 die x 2 planes */
#ifndef BPP
#define BPP 144u              /* blocks per plane (make pageftl128: 2,304, for 128 GiB) */
#endif
#define PPB 256u              /* pages per block (segment) */
#define SEGS (PLANES * BPP)   /* 9,216 blocks */
#define PAGES (SEGS * PPB)    /* 2,359,296 physical pages of 4 KiB */
#ifndef LPAGES
#define LPAGES (1u << 21)     /* 8 GiB logical / 4 KiB (make pageftl128: 1 << 25, 128 GiB) */
#endif
#define RESERVE 1u            /* classic schedule: GC when a plane has <= 1 free block */
/* A plane takes host writes while it holds fewer valid pages than this (flashlab's
 * pool_valid_limit: segments per pool - (reserve + streams + 1), in pages). */
#define POOL_VALID_LIMIT ((BPP - (RESERVE + 1 + 1)) * PPB)
#define NIL UINT32_MAX
#define BUCKETS (PPB + 1)     /* greedy buckets per plane: valid count 0..256 */
#define AHEAD 16              /* batch size / prefetch distance of modes b and c */
#define GC_AHEAD_L2 64        /* GC's prefetch distance with -G */

static void die(const char *msg) {
    fprintf(stderr, "pageftl: %s\n", msg);
    exit(1);
}

/* ---- RNG: flashlab's derive_seed, rand_xoshiro's Xoshiro256++ and SplitMix64 seeding ---- */

static uint64_t derive_seed(uint64_t seed, const char *name) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) h = (h ^ *p) * 0x100000001b3ull;
    uint64_t x = seed ^ h;
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

typedef struct { uint64_t s[4]; } Rng;

static Rng rng_seed(uint64_t seed) {
    Rng r;
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) {
        x += 0x9e3779b97f4a7c15ull;
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        r.s[i] = z ^ (z >> 31);
    }
    if (!(r.s[0] | r.s[1] | r.s[2] | r.s[3])) die("all-zero xoshiro state");
    return r;
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t next_u64(Rng *r) {
    uint64_t *s = r->s;
    uint64_t out = rotl(s[0] + s[3], 23) + s[0];
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

static inline uint32_t next_u32(Rng *r) { return (uint32_t)(next_u64(r) >> 32); }

/* rand 0.10 `random_range(0..n)` for u64 (not the `unbiased` feature). */
static uint64_t range_below(Rng *r, uint64_t n) {
    unsigned __int128 m = (unsigned __int128)next_u64(r) * n;
    uint64_t result = (uint64_t)(m >> 64), lo = (uint64_t)m;
    if (lo > (uint64_t)0 - n) {
        uint64_t hi2 = (uint64_t)(((unsigned __int128)next_u64(r) * n) >> 64);
        result += (lo + hi2 < lo); /* carry out of lo + hi2 */
    }
    return result;
}

/* ---- fio's zipf as flashlab's FioZipf draws it ---- */

typedef struct {
    uint64_t n, mask, rand_off;
    double zetan, alpha, eta, rank2_below, n_f64;
    /* PowByMuls plan (see crates/flashlab/src/workload/gen/zipf.rs). */
    int fast, sqrt_b, divide;
    uint32_t exponent, bit_start;
    double x_min, x_max, margin;
} Zipf;

static Zipf zipf_new(uint64_t n, double theta, uint64_t rand_off) {
    Zipf z = {0};
    uint64_t terms = n < 10000000 ? n : 10000000; /* fio's ZIPF_MAX_GEN */
    double zeta = 0.0;
    for (uint64_t i = 0; i < terms; i++) zeta += pow(1.0 / (double)(i + 1), theta);
    double zeta2 = 1.0 + pow(0.5, theta);
    double eta = (1.0 - pow(2.0 / (double)n, 1.0 - theta)) / (1.0 - zeta2 / zeta);
    if (!isfinite(eta)) eta = 0.0;
    z.n = n;
    z.mask = (n & (n - 1)) == 0 ? n - 1 : 0;
    z.rand_off = rand_off;
    z.zetan = zeta;
    z.alpha = 1.0 / (1.0 - theta);
    z.eta = eta;
    z.rank2_below = zeta2;
    z.n_f64 = (double)n;
    /* The plan, as PowByMuls::plan makes it. */
    double alpha = z.alpha, x_far = eta * (zeta2 / zeta) - eta + 1.0;
    if (!(isfinite(alpha) && isfinite(x_far) && x_far > 0.0)) return z;
    double m = round(2.0 * alpha);
    if (m == 0.0 || fabs(m) > 4096.0) return z;
    double f = fabs(alpha - m / 2.0);
    double j = ceil(fabs(log2(x_far))) + 1.0;
    if (j * (fabs(alpha) + 1.0) > 900.0) return z;
    int sq = fmod(m, 2.0) != 0.0;
    uint32_t e = (uint32_t)(sq ? fabs(m) : fabs(m) / 2.0);
    double c_fast = (double)e * (sq ? 2.0 : 1.0);
    double u_round = 1.0 / 9007199254740992.0; /* 2^-53 */
    double rounding = (c_fast + 4.0) * u_round;
    double t = f * j * 0.6931471805599453;   /* LN_2 */
    double limit = 1.0 / 16777216.0;           /* 2^-24 */
    if (rounding > limit || t > limit) return z;
    z.fast = 1;
    z.sqrt_b = sq;
    z.exponent = e;
    z.bit_start = (1u << (31 - __builtin_clz(e))) >> 1;
    z.divide = m < 0.0;
    z.x_max = ldexp(1.0, (int)j);
    z.x_min = 1.0 / z.x_max;
    z.margin = 2.0 * (rounding + t);
    return z;
}

/* floor(n * x^alpha) exactly as (n * pow(x, alpha)) truncated, or -1 when the powering
 * cannot tell (then the caller uses pow). */
static inline __attribute__((always_inline)) int64_t floor_n_pow(const Zipf *z, double x) {
    if (!(x >= z->x_min && x <= z->x_max)) return -1;
    double b = z->sqrt_b ? sqrt(x) : x, p = b;
    for (uint32_t bit = z->bit_start; bit; bit >>= 1) {
        p *= p;
        if (z->exponent & bit) p *= b;
    }
    double y = z->divide ? z->n_f64 / p : z->n_f64 * p;
    if (isnan(y) || y >= 4503599627370496.0) return -1; /* 2^52 */
    int64_t fl = (int64_t)y;
    double frac = y - (double)fl, slack = y * z->margin;
    return (frac > slack && frac + slack < 1.0) ? fl : -1;
}

static inline __attribute__((always_inline)) uint64_t zipf_rank(const Zipf *z, uint32_t rand32, int use_pow) {
    double u = (double)rand32 / (double)UINT32_MAX;
    double s = u * z->zetan;
    uint64_t rank1;
    if (s < 1.0) {
        rank1 = 1;
    } else if (s < z->rank2_below) {
        rank1 = 2;
    } else {
        double x = z->eta * u - z->eta + 1.0;
        int64_t fl = (z->fast && !use_pow) ? floor_n_pow(z, x) : -1;
        rank1 = fl >= 0 ? 1 + (uint64_t)fl : 1 + (uint64_t)(z->n_f64 * pow(x, z->alpha));
    }
    return rank1 - 1;
}

static inline __attribute__((always_inline)) uint32_t zipf_sample(const Zipf *z, Rng *r, int use_pow) {
    uint64_t h = zipf_rank(z, next_u32(r), use_pow) * 0x9e37fffffffc0001ull + z->rand_off;
    return (uint32_t)(z->mask ? (h & z->mask) : h % z->n);
}

/* ---- The FTL ---- */

static uint32_t l2p[LPAGES];            /* logical -> physical page, NIL unmapped */
static uint32_t p2l[PAGES];             /* physical -> logical (the OOB) */
static uint64_t valid_bits[PAGES / 64]; /* bit ppn: l2p[p2l[ppn]] == ppn */
static uint32_t seg_valid[SEGS];        /* valid pages per block */
/* Greedy: sealed blocks in per-plane buckets by valid count, FIFO within a bucket. */
static uint32_t bucket_of[SEGS];        /* valid count of a sealed block's bucket, NIL if not sealed */
static uint32_t nxt[SEGS], prv[SEGS];
static uint32_t head[PLANES * BUCKETS], tail[PLANES * BUCKETS];
static uint32_t low_hint[PLANES];       /* no non-empty bucket below this */
/* Allocator: a FIFO ring of free blocks per plane, one open block per plane. */
static uint32_t free_ring[PLANES][BPP];
static uint32_t free_head[PLANES], free_len[PLANES];
static uint32_t open_seg[PLANES], open_off[PLANES];
static uint64_t pool_valid[PLANES];
static uint32_t cursor;
static uint64_t host_writes, gc_copies, gc_victims;

static inline uint32_t pool_of(uint32_t seg) { return seg / BPP; }

static inline void bucket_push(uint32_t seg, uint32_t valid) {
    uint32_t pool = pool_of(seg), b = pool * BUCKETS + valid, t = tail[b];
    prv[seg] = t;
    nxt[seg] = NIL;
    if (t == NIL) head[b] = seg; else nxt[t] = seg;
    tail[b] = seg;
    bucket_of[seg] = valid;
    if (valid < low_hint[pool]) low_hint[pool] = valid;
}

static inline void bucket_unlink(uint32_t seg) {
    uint32_t b = pool_of(seg) * BUCKETS + bucket_of[seg], p = prv[seg], n = nxt[seg];
    if (p == NIL) head[b] = n; else nxt[p] = n;
    if (n == NIL) tail[b] = p; else prv[n] = p;
    bucket_of[seg] = NIL;
}

/* A sealed block lost a valid page: to the back of the bucket of its new count. */
static inline void bucket_move(uint32_t seg, uint32_t valid) {
    uint32_t pool = pool_of(seg), base = pool * BUCKETS;
    uint32_t b = base + bucket_of[seg], p = prv[seg], n = nxt[seg];
    if (p == NIL) head[b] = n; else nxt[p] = n;
    if (n == NIL) tail[b] = p; else prv[n] = p;
    b = base + valid;
    uint32_t t = tail[b];
    prv[seg] = t;
    nxt[seg] = NIL;
    if (t == NIL) head[b] = seg; else nxt[t] = seg;
    tail[b] = seg;
    bucket_of[seg] = valid;
    if (valid < low_hint[pool]) low_hint[pool] = valid;
}

static uint32_t greedy_victim(uint32_t pool) {
    uint32_t base = pool * BUCKETS;
    for (uint32_t v = low_hint[pool]; v <= PPB; v++) {
        uint32_t seg = head[base + v];
        if (seg != NIL) {
            low_hint[pool] = v;
            bucket_unlink(seg);
            return seg;
        }
    }
    low_hint[pool] = PPB + 1;
    die("GC found no victim");
    return NIL;
}

static void open_next(uint32_t pool) {
    if (free_len[pool] == 0) die("device full: a plane has no free block left");
    uint32_t seg = free_ring[pool][free_head[pool]];
    free_head[pool] = free_head[pool] + 1 == BPP ? 0 : free_head[pool] + 1;
    free_len[pool]--;
    open_seg[pool] = seg;
    open_off[pool] = 0;
}

static void release(uint32_t seg) {
    uint32_t pool = pool_of(seg), tailpos = free_head[pool] + free_len[pool];
    if (seg_valid[seg] != 0) die("releasing a block with valid pages");
    free_ring[pool][tailpos >= BPP ? tailpos - BPP : tailpos] = seg;
    free_len[pool]++;
}

/* `ppn`, just written, was the last page of its block: seal it (a greedy candidate). */
static inline void seal(uint32_t pool, uint32_t seg) {
    open_seg[pool] = NIL;
    bucket_push(seg, seg_valid[seg]);
}

/* Set bits [from, to) of valid_bits, a word at a time. */
static inline void set_bit_range(uint32_t from, uint32_t to) {
    while (from < to) {
        uint32_t w = from / 64, lo = from % 64, hi = to - w * 64 < 64 ? to - w * 64 : 64;
        uint64_t mask = (hi == 64 ? ~0ull : (1ull << hi) - 1) & ~((1ull << lo) - 1);
        valid_bits[w] |= mask;
        from = w * 64 + hi;
    }
}

static int gc_l2 = 0; /* -G */

/* GC's request for the L2P line of `lpn`. */
static inline void gc_ask(uint32_t lpn) {
    if (gc_l2) __builtin_prefetch(&l2p[lpn], 0, 2); /* prefetcht1: into L2 */
    else __builtin_prefetch(&l2p[lpn], 1);
}

/* Collect one victim of `pool`: list its valid pages' logical pages (in page order), then copy
 * them to the frontier one run of the open block at a time, the L2P entries prefetched AHEAD
 * (-G: GC_AHEAD_L2) pages before their update; erase the victim. */
static void collect(uint32_t pool) {
    uint32_t victim = greedy_victim(pool), first = victim * PPB, ahead = gc_l2 ? GC_AHEAD_L2 : AHEAD;
    uint32_t lpns[PPB + GC_AHEAD_L2], n = 0;
    for (uint32_t w = 0; w < PPB / 64; w++) {
        uint64_t bits = valid_bits[first / 64 + w];
        const uint32_t *oob = &p2l[first + w * 64];
        while (bits) {
            lpns[n++] = oob[__builtin_ctzll(bits)];
            bits &= bits - 1;
        }
        valid_bits[first / 64 + w] = 0;
    }
    for (uint32_t i = 0; i < ahead; i++) lpns[n + i] = 0; /* prefetch targets past the end */
    for (uint32_t i = 0; i < ahead; i++) gc_ask(lpns[i]);
    uint32_t k = 0;
    while (k < n) {
        if (open_seg[pool] == NIL) open_next(pool);
        uint32_t seg = open_seg[pool], off = open_off[pool];
        uint32_t run = n - k < PPB - off ? n - k : PPB - off, dst = seg * PPB + off;
        const uint32_t *src = &lpns[k];
        for (uint32_t i = 0; i < run; i++) {
            gc_ask(src[i + ahead]);
            l2p[src[i]] = dst + i;
        }
        memcpy(&p2l[dst], src, run * sizeof *src);
        set_bit_range(dst, dst + run);
        open_off[pool] = off + run;
        seg_valid[seg] += run;
        seg_valid[victim] -= run;
        gc_copies += run;
        k += run;
        if (off + run == PPB) seal(pool, seg);
    }
    release(victim);
    gc_victims++;
}

/* The plane a host write goes to: round-robin, passing over full planes. */
static inline uint32_t pool_for(void) {
    uint32_t p = cursor;
    if (__builtin_expect(pool_valid[p] >= POOL_VALID_LIMIT, 0)) {
        for (uint32_t i = 0; i < PLANES; i++) {
            uint32_t q = (cursor + i) % PLANES;
            if (pool_valid[q] < POOL_VALID_LIMIT) { p = q; break; }
        }
    }
    cursor = (p + 1) % PLANES;
    return p;
}

/* A page of the frontier of `pool`; GC first when it is full and the plane is short of free
 * blocks (classic schedule). */
static inline uint32_t take_page(uint32_t pool) {
    for (;;) {
        if (__builtin_expect(open_seg[pool] != NIL, 1)) return open_seg[pool] * PPB + open_off[pool]++;
        if (free_len[pool] <= RESERVE) collect(pool);
        else open_next(pool);
    }
}

static inline __attribute__((always_inline)) void host_write(uint32_t lpn) {
    uint32_t pool = pool_for();
    uint32_t ppn = take_page(pool);
    uint32_t old = l2p[lpn];
    if (old != NIL) {
        uint32_t seg = old / PPB;
        valid_bits[old / 64] &= ~(1ull << (old % 64));
        pool_valid[pool_of(seg)]--;
        uint32_t v = --seg_valid[seg];
        if (bucket_of[seg] != NIL) bucket_move(seg, v);
    }
    host_writes++;
    l2p[lpn] = ppn;
    p2l[ppn] = lpn;
    valid_bits[ppn / 64] |= 1ull << (ppn % 64);
    uint32_t seg = ppn / PPB;
    seg_valid[seg]++;
    pool_valid[pool]++;
    if (ppn % PPB == PPB - 1) seal(pool, seg);
}

static void ftl_init(void) {
    memset(l2p, 0xff, sizeof l2p);
    memset(p2l, 0xff, sizeof p2l);
    memset(bucket_of, 0xff, sizeof bucket_of);
    memset(head, 0xff, sizeof head);
    memset(tail, 0xff, sizeof tail);
    for (uint32_t p = 0; p < PLANES; p++) {
        for (uint32_t b = 0; b < BPP; b++) free_ring[p][b] = p * BPP + b;
        free_len[p] = BPP;
        open_seg[p] = NIL;
    }
}

/* O(pages) cross-check of every structure (-V). */
static void validate(void) {
    static uint32_t count[SEGS];
    memset(count, 0, sizeof count);
    uint64_t mapped = 0;
    for (uint32_t lpn = 0; lpn < LPAGES; lpn++) {
        uint32_t ppn = l2p[lpn];
        if (ppn == NIL) continue;
        if (ppn >= PAGES || p2l[ppn] != lpn || !(valid_bits[ppn / 64] >> (ppn % 64) & 1)) die("validate: l2p/p2l/valid bit disagree");
        count[ppn / PPB]++;
        mapped++;
    }
    uint64_t bits = 0;
    for (uint32_t w = 0; w < PAGES / 64; w++) bits += (uint64_t)__builtin_popcountll(valid_bits[w]);
    if (bits != mapped) die("validate: valid bits != mapped pages");
    for (uint32_t s = 0; s < SEGS; s++) {
        if (count[s] != seg_valid[s]) die("validate: block valid count");
        if (bucket_of[s] != NIL && bucket_of[s] != seg_valid[s]) die("validate: greedy bucket");
        if (bucket_of[s] != NIL && bucket_of[s] < low_hint[pool_of(s)]) die("validate: low hint");
    }
    for (uint32_t p = 0; p < PLANES; p++) {
        uint64_t v = 0;
        for (uint32_t s = p * BPP; s < (p + 1) * BPP; s++) v += seg_valid[s];
        if (v != pool_valid[p]) die("validate: valid pages per plane");
    }
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    char mode = 'a';
    double volume_ratio = 4.0;
    uint64_t seed = 1;
    int check = 0, use_pow = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-m") && i + 1 < argc) mode = argv[++i][0];
        else if (!strcmp(argv[i], "-v") && i + 1 < argc) volume_ratio = atof(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "-V")) check = 1;
        else if (!strcmp(argv[i], "-P")) use_pow = 1;
        else if (!strcmp(argv[i], "-G")) gc_l2 = 1;
        else die("usage: pageftl [-m a|b|c|d] [-v volume_ratio] [-s seed] [-P] [-G] [-V]");
    }
    if (!mode || !strchr("abcd", mode)) die("-m takes a, b, c or d");
    if (!(volume_ratio > 0.0 && volume_ratio <= 1000.0)) die("-v takes a volume ratio in (0, 1000]");

    /* Workload first, as flashlab builds it before preconditioning (zeta is not timed). */
    Rng wrng = rng_seed(derive_seed(seed, "workload"));
    Zipf z = zipf_new(LPAGES, 0.9, next_u32(&wrng));
    /* Byte limit volume_ratio x 8 GiB in 4 KiB requests: the first request reaching it is the last. */
    uint64_t total_bytes = (uint64_t)(volume_ratio * (double)((uint64_t)LPAGES * 4096));
    uint64_t requests = (total_bytes + 4095) / 4096;

    double t0 = now_s();
    ftl_init();
    for (uint32_t lpn = 0; lpn < LPAGES; lpn++) host_write(lpn);
    Rng prng = rng_seed(derive_seed(seed, "precondition"));
    for (uint64_t i = 0; i < LPAGES; i++) host_write((uint32_t)range_below(&prng, LPAGES));
    double precondition_s = now_s() - t0;
    uint64_t base_host = host_writes, base_copies = gc_copies, base_victims = gc_victims;

    uint32_t *addrs = NULL;
    if (mode == 'c') {
        addrs = malloc(requests * sizeof *addrs);
        if (!addrs) die("out of memory for the pre-generated addresses");
        for (uint64_t i = 0; i < requests; i++) addrs[i] = zipf_sample(&z, &wrng, use_pow);
    }
    double t1 = now_s();
    if (mode == 'a') {
        for (uint64_t i = 0; i < requests; i++) host_write(zipf_sample(&z, &wrng, use_pow));
    } else if (mode == 'b' || mode == 'd') {
        /* A ring of three batches: draw batch i + 2 and prefetch its L2P entries; (mode d) for
         * batch i + 1, whose entries have arrived, prefetch what its writes will touch besides
         * them: the old page's valid-bit word and its block's valid count and bucket links;
         * then write batch i. */
        uint32_t batch[3][AHEAD], len[3] = {0, 0, 0};
        uint64_t done = 0, drawn = 0;
        for (uint32_t i = 0; done < requests; i = i == 2 ? 0 : i + 1) {
            uint32_t fill = i == 0 ? 2 : i - 1, mid = i == 2 ? 0 : i + 1, next = 0;
            while (next < AHEAD && drawn < requests) {
                uint32_t lpn = zipf_sample(&z, &wrng, use_pow);
                __builtin_prefetch(&l2p[lpn], 1);
                batch[fill][next++] = lpn;
                drawn++;
            }
            len[fill] = next;
            if (mode == 'd') {
                for (uint32_t j = 0; j < len[mid]; j++) {
                    uint32_t old = l2p[batch[mid][j]];
                    if (old == NIL) continue;
                    __builtin_prefetch(&valid_bits[old / 64], 1);
                    __builtin_prefetch(&seg_valid[old / PPB], 1);
                    __builtin_prefetch(&bucket_of[old / PPB], 1);
                    __builtin_prefetch(&nxt[old / PPB], 1);
                    __builtin_prefetch(&prv[old / PPB], 1);
                }
            }
            for (uint32_t j = 0; j < len[i]; j++) host_write(batch[i][j]);
            done += len[i];
            len[i] = 0;
        }
    } else {
        for (uint64_t i = 0; i < requests; i++) {
            if (i + AHEAD < requests) __builtin_prefetch(&l2p[addrs[i + AHEAD]], 1);
            host_write(addrs[i]);
        }
    }
    double wall_s = now_s() - t1;
    free(addrs);

    uint64_t h = host_writes - base_host, c = gc_copies - base_copies, v = gc_victims - base_victims;
    if (check) validate();
    printf("mode=%c volume_ratio=%g seed=%" PRIu64 " host_writes=%" PRIu64 " gc_copies=%" PRIu64
           " gc_victims=%" PRIu64 " waf=%.10f precondition_s=%.3f wall_s=%.3f host_pages_per_s=%.0f%s%s\n",
           mode, volume_ratio, seed, h, c, v, (double)(h + c) / (double)h, precondition_s, wall_s,
           (double)h / wall_s, use_pow ? " zipf=pow" : "", check ? " validated=yes" : "");
    return 0;
}
