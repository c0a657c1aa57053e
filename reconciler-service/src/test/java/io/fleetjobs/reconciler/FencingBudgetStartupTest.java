package io.fleetjobs.reconciler;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetjobs.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;

/** The reconciler declares machines lost: it does not start with a lost TTL that the agents' fence outlasts. */
class FencingBudgetStartupTest {
    @Test
    void itRefusesToStartWhenTheLostTtlDoesNotOutlastTheFence() {
        TestDatabases.Database db = TestDatabases.create();
        assertThatThrownBy(() -> new SpringApplicationBuilder(ReconcilerApplication.class).run("--server.port=0",
                        "--spring.datasource.url=" + db.url(), "--spring.datasource.username=" + db.user(),
                        "--spring.datasource.password=" + db.password(), "--jobs.reconciler.lost-after=12s"))
                .hasStackTraceContaining("jobs.reconciler.lost-after (PT12S) must be longer than jobs.agent.lease-ttl (PT6S)"
                        + " + jobs.agent.kill-grace (PT5S) + jobs.agent.max-wait (PT2S) + jobs.agent.clock-skew-margin (PT1S)"
                        + " = PT14S");
    }
}
