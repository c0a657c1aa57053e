package io.fleetjobs.store;

import io.fleetjobs.model.Amounts;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The machines' allocation counters, as placement takes room and ended attempts give it back. Rows are
 * locked {@code FOR NO KEY UPDATE} in id order by every writer of them: no deadlock between writers, and
 * no wait for the foreign-key checks ({@code FOR KEY SHARE}) of attempt inserts.
 */
final class MachineAllocations {
    private final JdbcClient jdbc;

    MachineAllocations(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** What a READY machine has free: room, and how many more attempts it takes at once. */
    record Free(Amounts room, int attempts) {
    }

    /** Free capacity of these machines that are READY, their rows locked in id order. */
    Map<String, Free> lockFree(String[] machineIds) {
        Map<String, Free> free = new HashMap<>();
        jdbc.sql("""
                        select id, cpu_millis - alloc_cpu_millis, memory_mb - alloc_memory_mb, gpu_count - alloc_gpu_count,
                            max_live_attempts - live_attempts
                        from machines where id = any(:ids) and status = 'READY' order by id for no key update""")
                .param("ids", machineIds)
                .query(rs -> {
                    free.put(rs.getString(1), new Free(new Amounts(rs.getLong(2), rs.getLong(3), rs.getInt(4)), rs.getInt(5)));
                });
        return free;
    }

    /** Adds what each placement holds to its machine's counters (rows already locked by this transaction). */
    void take(List<String> machineIds, List<Amounts> held) {
        if (machineIds.isEmpty()) {
            return;
        }
        jdbc.sql("""
                        update machines m set alloc_cpu_millis = m.alloc_cpu_millis + d.cpu,
                            alloc_memory_mb = m.alloc_memory_mb + d.mem, alloc_gpu_count = m.alloc_gpu_count + d.gpu,
                            live_attempts = m.live_attempts + d.n
                        from (select u.m as id, sum(u.c) as cpu, sum(u.r) as mem, sum(u.g) as gpu, count(*) as n
                              from unnest(cast(:m as text[]), cast(:c as bigint[]), cast(:r as bigint[]), cast(:g as int[]))
                                   as u(m, c, r, g) group by u.m) d
                        where m.id = d.id""")
                .param("m", machineIds.toArray(String[]::new))
                .param("c", held.stream().map(Amounts::cpuMillis).toArray(Long[]::new))
                .param("r", held.stream().map(Amounts::memoryMb).toArray(Long[]::new))
                .param("g", held.stream().map(Amounts::gpus).toArray(Integer[]::new))
                .update();
    }

    /** What ended attempts held on one machine, and how many they were. */
    record Released(Amounts room, int attempts) {
        static final Released NONE = new Released(Amounts.ZERO, 0);

        /** This and one more ended attempt that held {@code held}. */
        Released plus(Amounts held) {
            return new Released(room.plus(held), attempts + 1);
        }
    }

    /**
     * Gives the machines back what ended attempts held, per machine; bumps their capacity version, which
     * wakes jobs waiting for room. Best as the last statements of a transaction: the machine rows, which
     * every placement locks too, are then held only until the commit.
     */
    void release(Map<String, Released> release) {
        if (release.isEmpty()) {
            return;
        }
        String[] machines = release.keySet().toArray(String[]::new);
        jdbc.sql("select id from machines where id = any(:ids) order by id for no key update")
                .param("ids", machines).query(String.class).list();
        jdbc.sql("""
                        update machines m set alloc_cpu_millis = m.alloc_cpu_millis - d.c, alloc_memory_mb = m.alloc_memory_mb - d.r,
                            alloc_gpu_count = m.alloc_gpu_count - d.g, live_attempts = greatest(m.live_attempts - d.n, 0),
                            capacity_version = m.capacity_version + 1
                        from unnest(cast(:m as text[]), cast(:c as bigint[]), cast(:r as bigint[]), cast(:g as int[]),
                                    cast(:n as int[])) as d(m, c, r, g, n)
                        where m.id = d.m""")
                .param("m", machines)
                .param("c", release.values().stream().map(r -> r.room().cpuMillis()).toArray(Long[]::new))
                .param("r", release.values().stream().map(r -> r.room().memoryMb()).toArray(Long[]::new))
                .param("g", release.values().stream().map(r -> r.room().gpus()).toArray(Integer[]::new))
                .param("n", release.values().stream().map(Released::attempts).toArray(Integer[]::new))
                .update();
    }
}
