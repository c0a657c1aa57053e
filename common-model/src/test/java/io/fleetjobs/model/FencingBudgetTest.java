package io.fleetjobs.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FencingBudgetTest {
    private static Duration s(double seconds) {
        return Duration.ofMillis(Math.round(seconds * 1000));
    }

    @ParameterizedTest(name = "lost {4} s vs lease {0} + grace {1} + hold {2} + skew {3}: holds={5}")
    @CsvSource({
            // lease, grace, hold, skew, lost, holds
            "6,  5,  2, 1, 15,   true",  // the defaults: 14 s fenced, 1 s to spare
            "6,  5,  2, 1, 14,   false", // equal is not enough: the retry could start as the kill lands
            "6,  5,  2, 1, 14.1, true",
            "10, 10, 5, 0, 15,   false", // the defaults before issue 19: 25 s fenced, lost at 15
            "10, 10, 2, 1, 15,   false",
            "3,  2,  1, 1, 15,   true",  // the short lease the fault tests use
            "0,  0,  0, 0, 1,    false", // no lease at all fences nothing
    })
    void theLostTtlMustOutlastLeaseGraceHoldAndSkew(double lease, double grace, double hold, double skew, double lost,
            boolean holds) {
        FencingBudget budget = new FencingBudget(s(lease), s(grace), s(hold), s(skew), s(lost));
        assertThat(budget.holds()).as(budget.toString()).isEqualTo(holds);
        if (holds) {
            assertThat(budget.requireHolds()).isSameAs(budget);
        } else {
            assertThatThrownBy(budget::requireHolds).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(FencingBudget.LOST_AFTER).hasMessageContaining(FencingBudget.LEASE_TTL)
                    .hasMessageContaining(FencingBudget.KILL_GRACE).hasMessageContaining(FencingBudget.LONGEST_HOLD)
                    .hasMessageContaining(FencingBudget.CLOCK_SKEW_MARGIN);
        }
    }

    @org.junit.jupiter.api.Test
    void theDefaultsHold() {
        FencingBudget defaults = new FencingBudget(FencingBudget.DEFAULT_LEASE_TTL, FencingBudget.DEFAULT_KILL_GRACE,
                FencingBudget.DEFAULT_LONGEST_HOLD, FencingBudget.DEFAULT_CLOCK_SKEW_MARGIN, FencingBudget.DEFAULT_LOST_AFTER);
        assertThat(defaults.margin()).isEqualTo(Duration.ofSeconds(1));
    }

    @ParameterizedTest
    @CsvSource({"6, 5, 2, 1, 15, 14, 1", "10, 10, 5, 0, 15, 25, -10"})
    void theMarginIsWhatTheLostTtlLeavesOver(double lease, double grace, double hold, double skew, double lost,
            double fencedBy, double margin) {
        FencingBudget budget = new FencingBudget(s(lease), s(grace), s(hold), s(skew), s(lost));
        assertThat(budget.fencedBy()).isEqualTo(s(fencedBy));
        assertThat(budget.margin()).isEqualTo(s(margin));
    }
}
