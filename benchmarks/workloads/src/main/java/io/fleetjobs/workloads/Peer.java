package io.fleetjobs.workloads;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerBuilder;
import com.github.kagkarlsson.scheduler.event.AbstractSchedulerListener;
import com.github.kagkarlsson.scheduler.task.ExecutionComplete;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * The peer: db-scheduler draining no-op one-time tasks that were preloaded into its table, on a fresh
 * database of {@link BenchPostgres}. The pool and the threads match the scheduler-service's
 * ({@code spring.datasource.hikari.maximum-pool-size} 10, so 10 threads, one per connection). Measured:
 * wall time from start to the last completion, tasks/s, commits and WAL bytes per task. Rows: the
 * lock-and-fetch strategy ({@code SELECT ... FOR UPDATE SKIP LOCKED}, Postgres only) and the
 * fetch-and-lock-on-execute one (optimistic {@code UPDATE ... WHERE version = ?} per task). Run with
 * {@code benchmarks/run peer [tasks] [poll interval ms]} (default 200,000 and 100 ms).
 */
public final class Peer {
    /** scheduler-service's maximum-pool-size (application.yml, JOBS_DB_POOL_SIZE default). */
    static final int POOL = 10;
    static final int THREADS = POOL;
    static final String TASK = "noop";
    static final int PRELOAD_BATCH = 10_000;

    private Peer() {
    }

    public static void main(String[] args) throws Exception {
        int tasks = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        Duration poll = Duration.ofMillis(args.length > 1 ? Long.parseLong(args[1]) : 100);
        try (BenchPostgres pg = BenchPostgres.start()) {
            System.out.printf("peer: db-scheduler, %,d no-op one-time tasks preloaded, Hikari pool %d, %d threads,"
                    + " polling interval %d ms%n", tasks, POOL, THREADS, poll.toMillis());
            System.out.println("server: " + pg.describe());
            System.out.printf("%-36s %10s %10s %10s %14s %14s%n", "strategy", "tasks", "wall s", "tasks/s",
                    "commits/task", "WAL B/task");
            run(pg, tasks, "lock-and-fetch (0.5, 1.0)", b -> b.pollUsingLockAndFetch(0.5, 1.0), poll);
            run(pg, tasks, "fetch-and-lock-on-execute (0.5, 3.0)", b -> b.pollUsingFetchAndLockOnExecute(0.5, 3.0),
                    poll);
        }
    }

    private static void run(BenchPostgres pg, int tasks, String name, UnaryOperator<SchedulerBuilder> strategy,
            Duration poll) throws Exception {
        String db = "bench_peer";
        String url = pg.createDatabase(db);
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            s.execute(DDL);
            preload(s, tasks);
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(pg.user());
        config.setPassword(pg.password());
        config.setMaximumPoolSize(POOL);
        config.setMinimumIdle(POOL);
        try (HikariDataSource ds = new HikariDataSource(config)) {
            CountDownLatch done = new CountDownLatch(tasks);
            OneTimeTask<Void> noop = Tasks.oneTime(TASK).execute((instance, context) -> {
            });
            Scheduler scheduler = strategy.apply(Scheduler.create(ds, noop)
                            .threads(THREADS)
                            .pollingInterval(poll)
                            .addSchedulerListener(new AbstractSchedulerListener() {
                                @Override
                                public void onExecutionComplete(ExecutionComplete complete) {
                                    done.countDown();
                                }
                            }))
                    .build();
            BenchPostgres.Counters before = pg.counters(db);
            long start = System.nanoTime();
            scheduler.start();
            boolean drained = done.await(15, TimeUnit.MINUTES);
            double seconds = (System.nanoTime() - start) / 1e9;
            BenchPostgres.Counters used = pg.counters(db).minus(before);
            scheduler.stop();
            long left = remaining(pg, db);
            int completed = (int) (tasks - done.getCount());
            System.out.printf("%-36s %10d %10.1f %10.0f %14.2f %14.0f%s%n", name, completed, seconds,
                    completed / seconds, (double) used.commits() / completed, (double) used.walBytes() / completed,
                    drained && left == 0 ? "" : "  (not drained: " + left + " rows left)");
        }
    }

    /** Preloads due tasks with multi-row inserts, {@value #PRELOAD_BATCH} rows per statement; not measured. */
    private static void preload(Statement s, int tasks) throws Exception {
        for (int from = 0; from < tasks; from += PRELOAD_BATCH) {
            int to = Math.min(tasks, from + PRELOAD_BATCH) - 1;
            s.execute("insert into scheduled_tasks (task_name, task_instance, execution_time, picked, version)"
                    + " select '" + TASK + "', 'task-' || g, now() - interval '1 second', false, 1"
                    + " from generate_series(" + from + ", " + to + ") g");
        }
        s.execute("vacuum analyze scheduled_tasks");
    }

    private static long remaining(BenchPostgres pg, String db) throws Exception {
        try (Connection c = pg.connect(db); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("select count(*) from scheduled_tasks")) {
            r.next();
            return r.getLong(1);
        }
    }

    /** db-scheduler's table for PostgreSQL, as its documentation describes it (with the priority column of v15+). */
    static final String DDL = """
            create table scheduled_tasks (
                task_name            text                     not null,
                task_instance        text                     not null,
                task_data            bytea,
                execution_time       timestamp with time zone not null,
                picked               boolean                  not null,
                picked_by            text,
                last_success         timestamp with time zone,
                last_failure         timestamp with time zone,
                consecutive_failures int,
                last_heartbeat       timestamp with time zone,
                version              bigint                   not null,
                priority             smallint,
                primary key (task_name, task_instance)
            );
            create index execution_time_idx on scheduled_tasks (execution_time);
            create index last_heartbeat_idx on scheduled_tasks (last_heartbeat);
            create index priority_execution_time_idx on scheduled_tasks (priority desc, execution_time asc);
            """;
}
