/*
 * rng.h - deterministic random streams for the generator.
 *
 * Purpose: every random choice drabench makes (cluster identifiers, shape mix, arrival times,
 * lifetimes, placement ties) comes from one 64-bit scenario seed split into independent streams,
 * so changing how many numbers one part draws never shifts another part. A stream is
 * xoshiro256** seeded by four outputs of splitmix64 started at seed ^ mix(stream id).
 * The output sequence is part of the result contract (same seed, same manifests, on every host).
 *
 * Ownership: plain value type, no allocation. Errors: none. Cost: a few ns per draw.
 * Thread-safety: a stream is not shared; give each thread its own stream id.
 */
#ifndef DRA_GEN_RNG_H
#define DRA_GEN_RNG_H

#include <stdint.h>

/* Stream ids used by the generator (add new ones at the end; never renumber). */
enum dra_rng_stream {
    DRA_STREAM_CLUSTER = 1,  /* identifiers: UUIDs, slice name suffixes */
    DRA_STREAM_SHAPES = 2,   /* which shape each arrival uses */
    DRA_STREAM_ARRIVAL = 3,  /* inter-arrival times */
    DRA_STREAM_LIFETIME = 4, /* lifetimes */
    DRA_STREAM_PLACEMENT = 5, /* reserved for the runner's placement policy */
    DRA_STREAM_FUZZ = 6,
};

typedef struct dra_rng {
    uint64_t s[4];
} dra_rng_t;

/* One splitmix64 step: advances *state and returns the mixed output. */
uint64_t dra_splitmix64(uint64_t *state);
/* Seed stream `stream` of scenario seed `seed`. */
void dra_rng_seed(dra_rng_t *r, uint64_t seed, uint64_t stream);
/* Next 64 random bits (xoshiro256**). */
uint64_t dra_rng_next(dra_rng_t *r);
/* Uniform in [0, n) without modulo bias (Lemire); n == 0 returns 0. */
uint64_t dra_rng_below(dra_rng_t *r, uint64_t n);
/* Uniform double in [0, 1) with 53 random bits. */
double dra_rng_unit(dra_rng_t *r);
/* Exponential with the given mean (> 0); never returns +inf. */
double dra_rng_exp(dra_rng_t *r, double mean);

#endif /* DRA_GEN_RNG_H */
