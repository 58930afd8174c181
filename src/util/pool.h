/* util/pool.h: a small pool of worker threads with a bounded job queue.
 *
 * Jobs are functions run once each on some worker, in submission order of start (not of
 * completion). The queue holds at most `queue_cap` jobs that have not started: a submit
 * beyond that blocks until a worker takes one, so a producer cannot run ahead without
 * bound. Cancellation drops the jobs that have not started (each one's `drop` callback
 * runs instead of `fn`, on the cancelling thread, so what it owns is freed) and makes
 * pm_pool_cancelled() true for the running ones, which poll it between units of work;
 * the pool is reusable afterwards: pm_pool_wait() returns once it is idle, and a later
 * submit clears the cancellation. pm_pool_free() cancels, waits and joins.
 *
 * Thread safety: every function may be called from any thread except pm_pool_free()
 * (one thread, not a worker of the pool) and pm_pool_wait() from a worker of the same pool
 * (it would wait for itself). */
#ifndef PM_UTIL_POOL_H
#define PM_UTIL_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "util/util.h"

typedef struct pm_pool pm_pool;

/* A job: `fn(arg)` on a worker; `drop(arg)` (nullable) instead when the job is cancelled
 * before it starts. */
typedef void (*pm_pool_fn)(void *arg);

/* The number of online CPUs (at least 1). */
int pm_cpu_count(void);

/* Starts `nthreads` (1..256) workers with room for `queue_cap` (>= 1) pending jobs.
 * PAIMON_EINVAL for bad sizes, PAIMON_ENOMEM / PAIMON_EIO when memory or a thread
 * cannot be had (the threads started so far are joined). */
int pm_pool_new(pm_pool **out, int nthreads, size_t queue_cap, paimon_error *err);
/* Queues a job, blocking while the queue is full. Clears an earlier cancellation.
 * PAIMON_ESTATE when the pool is being freed (the job is not run; `drop` runs). */
int pm_pool_submit(pm_pool *p, pm_pool_fn fn, pm_pool_fn drop, void *arg);
/* Drops the pending jobs (their `drop` runs here) and flags the running ones. */
void pm_pool_cancel(pm_pool *p);
/* True from pm_pool_cancel() until the next pm_pool_submit(): running jobs poll it. */
bool pm_pool_cancelled(const pm_pool *p);
/* Blocks until no job is pending or running. */
void pm_pool_wait(pm_pool *p);
/* Number of workers. */
int pm_pool_threads(const pm_pool *p);
/* Cancels, waits for the running jobs, joins the workers and frees; NULL is ignored. */
void pm_pool_free(pm_pool *p);

#endif
