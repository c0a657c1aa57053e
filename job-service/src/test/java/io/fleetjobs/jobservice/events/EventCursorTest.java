package io.fleetjobs.jobservice.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EventCursorTest {
    @ParameterizedTest(name = "{6}")
    @CsvSource(nullValues = "-", textBlock = """
            # resumeAfter, oneJob, oldestKept, head, after, horizon, why
            -,   true,  1,   90,  0,   false, one job not resumed: its whole history
            -,   false, 1,   90,  90,  false, a tenant not resumed: from the feed's head on
            -,   true,  50,  90,  0,   false, one job not resumed: no horizon, there was nothing it saw
            40,  false, 1,   90,  40,  false, resumed: after the last id seen
            40,  true,  41,  90,  40,  false, resumed exactly at the oldest kept: nothing lost
            40,  true,  42,  90,  41,  true,  resumed below the oldest kept: from there and say so
            0,   false, 10,  90,  9,   true,  resumed at zero on a store that forgot the first nine
            120, false, 1,   90,  120, false, resumed beyond this feed's head (another instance sent it): kept
            """)
    void startsWhereTheClientLeftOffOrWhereTheStoreStillKeepsIt(Long resumeAfter, boolean oneJob, long oldestKept,
            long head, long after, boolean horizon, String why) {
        assertThat(EventCursor.start(resumeAfter, oneJob, oldestKept, head)).as(why).isEqualTo(new EventCursor(after, horizon));
    }

    @ParameterizedTest
    @CsvSource(nullValues = "-", textBlock = """
            -,     -
            '',    -
            ' 7 ', 7
            0,     0
            """)
    void readsTheIdTheClientSent(String value, Long expected) {
        assertThat(EventCursor.parse(value)).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"-1", "abc", "1.5", "99999999999999999999"})
    void refusesWhatNoStreamSent(String value) {
        assertThatThrownBy(() -> EventCursor.parse(value)).isInstanceOf(NumberFormatException.class);
    }
}
