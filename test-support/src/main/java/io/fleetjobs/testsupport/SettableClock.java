package io.fleetjobs.testsupport;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock that tests move by hand: time passes only when the test says so. */
public final class SettableClock implements InstantSource {
    private volatile Instant now;

    public SettableClock(Instant start) {
        this.now = start;
    }

    public static SettableClock atNow() {
        return new SettableClock(Instant.now());
    }

    @Override
    public Instant instant() {
        return now;
    }

    public void advance(Duration by) {
        now = now.plus(by);
    }

    public void set(Instant instant) {
        now = instant;
    }
}
