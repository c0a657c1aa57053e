/**
 * The fleet simulator's pure parts: the CSV of simulated machines and the runner that ends an attempt after
 * {@code SIM_DURATION_MS} with {@code SIM_EXIT_CODE} instead of starting a process. No Spring, no network.
 */
package io.fleetjobs.agent.simulate;
