package io.fleetjobs.support;

import java.util.concurrent.ConcurrentHashMap;

/**
 * At most {@code perKey} calls of one kind in progress at once for each key (a tenant, a machine) on this instance;
 * past it a call is refused at once (429), not queued, and a refusal takes nothing. What it bounds: one tenant's open
 * streams or index-less listings, one machine's heartbeats or log pushes, each of which holds a thread, a connection or
 * a database permit that every other key shares. A key with nothing in progress is forgotten, so memory follows the
 * keys busy now, not every key ever seen (a fleet of 10,000 machines). Thread-safe.
 *
 * @param <K> what a place is counted by
 */
public final class PlacesPerKey<K> {
    private final int perKey;
    private final ConcurrentHashMap<K, Integer> taken = new ConcurrentHashMap<>();

    public PlacesPerKey(int perKey) {
        if (perKey < 1) {
            throw new IllegalArgumentException("at least one place a key: " + perKey);
        }
        this.perKey = perKey;
    }

    /** The bound. */
    public int perKey() {
        return perKey;
    }

    /** Takes one of the key's places; false, taking nothing, when it holds them all. */
    public boolean tryTake(K key) {
        boolean[] took = {false};
        taken.compute(key, (k, n) -> {
            int now = n == null ? 0 : n;
            if (now >= perKey) {
                return n;
            }
            took[0] = true;
            return now + 1;
        });
        return took[0];
    }

    /** Gives back a place {@link #tryTake} took. */
    public void giveBack(K key) {
        taken.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1);
    }

    /** Keys with a place taken now. */
    public int keys() {
        return taken.size();
    }
}
