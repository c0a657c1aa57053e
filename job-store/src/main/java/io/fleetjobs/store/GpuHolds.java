package io.fleetjobs.store;

import io.fleetjobs.model.GpuAssignment;
import io.fleetjobs.model.GpuDevice;
import io.fleetjobs.model.agent.AttemptReport;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Which GPU devices each live attempt holds. The counts on machines say how many are taken; the holds say which,
 * so that an agent can show a job exactly its own devices. Written in the transactions that take and give back
 * the counts, under the same machine row locks.
 */
public final class GpuHolds {
    private final JdbcClient jdbc;

    public GpuHolds(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** An attempt that holds {@code count} GPUs on its machine. */
    public record Request(UUID jobId, int attempt, String machineId, int count) {
    }

    /** The devices a machine offers, by index, from its row; numbered 0…n-1 where its agent did not list them. */
    static List<GpuDevice> offered(int count, String json) {
        List<GpuDevice> listed = Arrays.asList(Json.read(json, GpuDevice[].class));
        return listed.size() == count ? listed : GpuDevice.numbered(count);
    }

    /** Names the devices of the placed attempts that hold GPUs; {@code attempts} says how many each holds. */
    void hold(List<PlacementStore.Scheduled> scheduled, List<PlacementStore.NewAttempt> attempts) {
        Map<UUID, Integer> counts = new HashMap<>();
        attempts.forEach(a -> counts.put(a.job().id(), a.held().gpus())); // a gang's replicas each hold the same
        hold(scheduled.stream().map(s -> new Request(s.jobId(), s.attempt(), s.machineId(), counts.get(s.jobId()))).toList());
    }

    /**
     * Gives each new attempt that asks for GPUs its devices ({@link GpuAssignment}), in plan order. Call after
     * the attempts are inserted and their machines' counters raised, in that transaction: the machine rows are
     * locked, so no other placement picks from the same devices meanwhile.
     *
     * @return the devices each attempt got, by job (a gang's replicas, one per machine: one of them)
     */
    Map<UUID, List<Integer>> hold(List<Request> requests) {
        List<Request> withGpus = requests.stream().filter(r -> r.count() > 0).toList();
        if (withGpus.isEmpty()) {
            return Map.of();
        }
        String[] machines = withGpus.stream().map(Request::machineId).distinct().toArray(String[]::new);
        // two round trips: what the machines offer and hold, then the holds and the attempts' indices in one statement
        Map<String, Set<Integer>> offered = new HashMap<>();
        Map<String, Set<Integer>> held = new HashMap<>();
        jdbc.sql("""
                        select m.id, m.gpu_count, m.gpu_devices::text,
                               array(select h.gpu_index from gpu_holds h where h.machine_id = m.id)
                        from machines m where m.id = any(:ids)""")
                .param("ids", machines)
                .query(rs -> {
                    Set<Integer> indices = new HashSet<>();
                    offered(rs.getInt(2), rs.getString(3)).forEach(d -> indices.add(d.index()));
                    offered.put(rs.getString(1), indices);
                    held.put(rs.getString(1), new HashSet<>(Arrays.asList((Integer[]) rs.getArray(4).getArray())));
                });
        Map<UUID, List<Integer>> picked = new HashMap<>();
        Map<Request, List<Integer>> byRequest = new HashMap<>();
        List<Object[]> rows = new ArrayList<>();
        for (Request r : withGpus) {
            Set<Integer> taken = held.computeIfAbsent(r.machineId(), m -> new HashSet<>());
            List<Integer> devices = GpuAssignment.pick(r.count(), offered.getOrDefault(r.machineId(), Set.of()), taken);
            taken.addAll(devices);
            picked.put(r.jobId(), devices);
            byRequest.put(r, devices);
            devices.forEach(d -> rows.add(new Object[] {r.machineId(), d, r.jobId().toString(), r.attempt()}));
        }
        jdbc.sql("""
                        with holds as (
                            insert into gpu_holds (machine_id, gpu_index, job_id, attempt)
                            select * from unnest(cast(:m as text[]), cast(:g as int[]), cast(:j as uuid[]), cast(:n as int[])))
                        update attempts a set gpu_indices = cast(d.indices as int[])
                        from unnest(cast(:aj as uuid[]), cast(:an as int[]), cast(:am as text[]), cast(:ai as text[]))
                             as d(id, n, m, indices)
                        where a.job_id = d.id and a.attempt = d.n and a.machine_id = d.m""")
                .param("m", rows.stream().map(r -> (String) r[0]).toArray(String[]::new))
                .param("g", rows.stream().map(r -> (Integer) r[1]).toArray(Integer[]::new))
                .param("j", rows.stream().map(r -> (String) r[2]).toArray(String[]::new))
                .param("n", rows.stream().map(r -> (Integer) r[3]).toArray(Integer[]::new))
                .param("aj", withGpus.stream().map(r -> r.jobId().toString()).toArray(String[]::new))
                .param("an", withGpus.stream().map(Request::attempt).toArray(Integer[]::new))
                .param("am", withGpus.stream().map(Request::machineId).toArray(String[]::new))
                .param("ai", withGpus.stream().map(r -> "{" + GpuAssignment.visibleDevices(byRequest.get(r)) + "}")
                        .toArray(String[]::new))
                .update();
        return picked;
    }

    /** Gives back the devices of these ended attempts (their allocations released in this transaction). */
    void release(List<AttemptReport> ended) {
        if (ended.isEmpty()) {
            return;
        }
        jdbc.sql("""
                        delete from gpu_holds h using unnest(cast(:j as uuid[]), cast(:n as int[]), cast(:m as text[]))
                             as d(id, n, m)
                        where h.job_id = d.id and h.attempt = d.n and h.machine_id = d.m""")
                .param("j", ended.stream().map(r -> r.jobId().toString()).toArray(String[]::new))
                .param("m", ended.stream().map(AttemptReport::machineId).toArray(String[]::new))
                .param("n", ended.stream().map(AttemptReport::attempt).toArray(Integer[]::new))
                .update();
    }

    /** Gives back the devices of every attempt whose allocation is released: the reconciler's repair. */
    int releaseEnded() {
        return jdbc.sql("""
                        delete from gpu_holds h using attempts a
                        where a.job_id = h.job_id and a.attempt = h.attempt and a.machine_id = h.machine_id
                          and a.released_at is not null""")
                .update();
    }
}
