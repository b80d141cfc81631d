/* rng.c - splitmix64 seeding and xoshiro256** streams; see rng.h. */
#include "rng.h"

#include <math.h>

__extension__ typedef unsigned __int128 u128;

uint64_t dra_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void dra_rng_seed(dra_rng_t *r, uint64_t seed, uint64_t stream)
{
    /* Mix the stream id on its own first so that (seed, stream) pairs never alias by XOR. */
    uint64_t sm = stream * 0xd1342543de82ef95ull + 0x2545f4914f6cdd1dull;
    uint64_t st = seed ^ dra_splitmix64(&sm);
    for (int i = 0; i < 4; i++)
        r->s[i] = dra_splitmix64(&st);
    if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0)
        r->s[0] = 1; /* the all-zero state is a fixed point */
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t dra_rng_next(dra_rng_t *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t dra_rng_below(dra_rng_t *r, uint64_t n)
{
    if (n == 0)
        return 0;
    u128 m = (u128)dra_rng_next(r) * n;
    uint64_t l = (uint64_t)m;
    if (l < n) {
        uint64_t t = (0 - n) % n;
        while (l < t) {
            m = (u128)dra_rng_next(r) * n;
            l = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

double dra_rng_unit(dra_rng_t *r)
{
    return (double)(dra_rng_next(r) >> 11) * 0x1.0p-53;
}

double dra_rng_exp(dra_rng_t *r, double mean)
{
    /* 1 - u is in (0, 1], so the log is finite. */
    return -mean * log(1.0 - dra_rng_unit(r));
}
