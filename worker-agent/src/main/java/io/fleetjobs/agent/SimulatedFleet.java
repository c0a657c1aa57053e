package io.fleetjobs.agent;

import io.fleetjobs.agent.simulate.SimulatedMachine;
import io.fleetjobs.agent.simulate.SimulatedRunner;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.web.client.RestClient;

/**
 * The fleet simulator: one {@link Agent} per simulated machine, each with the real protocol (its own join
 * and credential, incarnation, heartbeats, leases and reports), sharing what a process can share: one HTTP
 * client, one timer for every simulated attempt, and a virtual thread per machine's loop
 * instead of a platform thread. Each machine's first heartbeat is put off by a random part of the interval,
 * so a thousand machines joined together do not beat in the same millisecond ever after.
 */
final class SimulatedFleet implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(SimulatedFleet.class);
    /** How many joins are in flight at once (each is a transaction on the scheduler). */
    private static final int JOINING_AT_ONCE = 16;

    private final List<SimulatedMachine> machines;
    private final List<Agent> agents = new ArrayList<>();
    private final ScheduledExecutorService timer;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean running;

    SimulatedFleet(WorkerProperties properties, List<SimulatedMachine> machines, RestClient.Builder rest,
            InstantSource clock, RandomGenerator random) {
        if (properties.joinToken() == null || properties.joinToken().isBlank()) {
            throw new IllegalStateException("no join token: set jobs.worker.join-token (JOBS_WORKER_JOIN_TOKEN) to the "
                    + "control plane's JOBS_AGENT_JOIN_TOKEN");
        }
        this.machines = machines;
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(2,
                Thread.ofPlatform().name("sim-timer-", 0).daemon(true).factory());
        timer.setRemoveOnCancelPolicy(true); // canceled attempts leave the queue at once
        this.timer = timer;
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(SchedulerClient.CONNECT_TIMEOUT).build();
        Duration readTimeout = properties.heartbeatInterval().plus(Duration.ofSeconds(10));
        SimulatedRunner runner = new SimulatedRunner(timer, clock);
        long intervalMs = properties.heartbeatInterval().toMillis();
        for (SimulatedMachine m : machines) {
            SchedulerClient scheduler = new SchedulerClient(rest, properties.schedulerUrl(), readTimeout, http);
            MachineResources resources = new MachineResources(m.id(), m.cpuMillis(), m.memoryMb(), m.gpuCount(), m.gpuType());
            Duration jitter = Duration.ofMillis(intervalMs <= 0 ? 0 : random.nextLong(intervalMs));
            agents.add(new Agent(properties.forMachine(m.id(), m.region(), m.labels()), resources, scheduler, runner,
                    clock, Thread.ofVirtual().name("sim-" + m.id()), jitter, null));
        }
    }

    /** Joins every machine (a few at a time), then keeps the process alive: the machines' loops are virtual threads. */
    @Override
    public void start() {
        Semaphore joining = new Semaphore(JOINING_AT_ONCE);
        List<Future<?>> joins = new ArrayList<>();
        try (ExecutorService starter = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Agent agent : agents) {
                joins.add(starter.submit(() -> {
                    joining.acquireUninterruptibly();
                    try {
                        agent.start();
                    } finally {
                        joining.release();
                    }
                }));
            }
        }
        for (int i = 0; i < joins.size(); i++) {
            try {
                joins.get(i).get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the simulated machines joined");
            } catch (ExecutionException e) {
                stopAgents();
                throw new IllegalStateException("simulated machine " + machines.get(i).id() + " could not join: "
                        + e.getCause().getMessage(), e.getCause());
            }
        }
        running = true;
        Map<String, Integer> perRegion = new TreeMap<>();
        machines.forEach(m -> perRegion.merge(m.region(), 1, Integer::sum));
        log.info("simulating {} machines ({} with GPUs), per region {}", machines.size(),
                machines.stream().filter(m -> m.gpuCount() > 0).count(), perRegion);
        Thread.ofPlatform().name("sim-fleet").daemon(false).start(() -> {
            try {
                stopped.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    @Override
    public void stop() {
        running = false;
        stopAgents();
        timer.shutdownNow();
        stopped.countDown();
    }

    private void stopAgents() {
        for (Agent agent : agents) {
            if (agent.isRunning()) {
                agent.stop();
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** For tests: the machines played. */
    List<SimulatedMachine> machines() {
        return machines;
    }
}
