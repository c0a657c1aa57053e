package io.fleetjobs.agent;

/**
 * A clock that only moves forward, in nanoseconds from an arbitrary origin: what the agent's lease is counted on,
 * so that no step of the wall clock (NTP, an operator) lengthens or shortens it. {@link #SYSTEM} in production;
 * tests step one by hand.
 */
@FunctionalInterface
interface MonotonicClock {
    MonotonicClock SYSTEM = System::nanoTime;

    long nanos();
}
