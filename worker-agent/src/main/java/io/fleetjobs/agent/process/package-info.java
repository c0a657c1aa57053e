/**
 * Running attempts as real processes: each in a process group of its own (through {@code setsid}), in a
 * fresh working directory, output captured to capped files with its tail in memory, stopped as a whole
 * group (SIGTERM, grace, SIGKILL), and recorded on disk so that a restarted agent kills what its previous
 * incarnation left ({@link io.fleetjobs.agent.process.ProcessRunner#killLeftovers()}). Plain Java; Linux.
 */
package io.fleetjobs.agent.process;
