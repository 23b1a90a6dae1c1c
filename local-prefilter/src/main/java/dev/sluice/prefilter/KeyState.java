package dev.sluice.prefilter;

/**
 * What this process knows of one key: a cached refusal (both modes; see {@link RefusalCache}) and, in
 * allowance mode, a pool of permits with its adaptive batch (see {@link AllowancePool}). Fields are guarded
 * by the instance's monitor.
 */
final class KeyState {
    long refusedPermits; // 0: no refusal cached
    long refusedUntil; // local time: refuse while now < refusedUntil
    long retryAt; // local time: send time + the store's retry-after (for the lease's retryAfter)
    long refusedRemaining;
    long refusedLimit;
    long refusedResetAt;

    long pool;
    long poolUntil;
    long storeRemaining;
    long storeLimit;
    long storeResetAt;
    boolean refilling;
    long batch = 1;
    boolean refilled;
    long lastRefillAt;

    /** When the cache may forget this entry (local time); read by the cache's expiry. */
    volatile long keepUntil;

    KeyState(long keepUntil) {
        this.keepUntil = keepUntil;
    }

    void keepAtLeast(long until) {
        if (until - keepUntil > 0) {
            keepUntil = until;
        }
    }

    boolean refusesLocally(long asked, long now) {
        return refusedPermits > 0 && asked >= refusedPermits && now - refusedUntil < 0;
    }

    void refuse(long asked, long until, long retryAt, long remaining, long limit, long resetAt, long now) {
        boolean current = refusedPermits > 0 && now - refusedUntil < 0;
        if (current && refusedPermits <= asked && refusedUntil - until >= 0) {
            return; // the cached refusal already covers this one
        }
        refusedPermits = asked;
        refusedUntil = until;
        this.retryAt = retryAt;
        refusedRemaining = remaining;
        refusedLimit = limit;
        refusedResetAt = resetAt;
        keepAtLeast(until);
    }

    /** Permits of the pool still spendable at {@code now}; discards and returns an expired pool as negative. */
    long expirePool(long now) {
        if (pool > 0 && now - poolUntil >= 0) {
            long lost = pool;
            pool = 0;
            if (lost * 2 > batch) {
                batch = Math.max(1, batch / 2); // taken too much: most of it went unused
            }
            return -lost;
        }
        return pool;
    }

    /** Empties the pool of an entry that can no longer be found, and returns what it held. */
    long takePool() {
        synchronized (this) {
            long lost = pool;
            pool = 0;
            return lost;
        }
    }
}
