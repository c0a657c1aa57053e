package io.fleetjobs.model;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validation;
import jakarta.validation.Validator;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class JobSpecValidationTest {
    private static final Validator VALIDATOR = Validation.buildDefaultValidatorFactory().getValidator();

    private static JobSpec spec(String name, Resources resources, Execution execution) {
        return new JobSpec(name, null, null, resources, null, execution, null, null);
    }

    private static List<String> fieldsAtFault(Object o) {
        return VALIDATOR.validate(o).stream().map(ConstraintViolation::getPropertyPath).map(Object::toString)
                .sorted().collect(Collectors.toList());
    }

    @Test
    void aMinimalSpecTakesItsDefaults() {
        JobSpec s = spec("hello", Resources.of(0.5, 128), Execution.of("echo", "hi"));
        assertThat(fieldsAtFault(s)).isEmpty();
        assertThat(s.queue()).isEqualTo("default");
        assertThat(s.priority()).isEqualTo(500);
        assertThat(s.retry().maxAttempts()).isEqualTo(3);
        assertThat(s.retry().retryOnExitCodes()).isEmpty();
        assertThat(s.resources().gpuCount()).isZero();
        assertThat(s.resources().cpuMillis()).isEqualTo(500);
        assertThat(s.placement()).isEqualTo(Placement.ANYWHERE);
    }

    @Test
    void anArgumentOrAVariableLongerInUtf8ThanExecTakesIsRefusedAndAsciiUpToTheOldLimitIsNot() {
        String ascii = "x".repeat(65_536);
        String accented = "é".repeat(65_536); // 65,536 characters, 131,072 bytes: past 128 KiB with its NUL
        assertThat(fieldsAtFault(spec("n", Resources.of(1, 1), Execution.of("echo", ascii)))).isEmpty();
        assertThat(fieldsAtFault(spec("n", Resources.of(1, 1), new Execution(List.of("echo"), Map.of("A", ascii), null))))
                .isEmpty();
        assertThat(fieldsAtFault(spec("n", Resources.of(1, 1), Execution.of("echo", accented))))
                .containsExactly("execution.command[1].<list element>");
        assertThat(fieldsAtFault(spec("n", Resources.of(1, 1), new Execution(List.of("echo"), Map.of("A", accented), null))))
                .containsExactly("execution.env[A].<map value>");
    }

    /** A value past both limits is told both, in words that agree: characters, then bytes. */
    @Test
    void aValuePastBothLimitsIsToldEachInItsOwnUnit() {
        var spec = spec("n", Resources.of(1, 1), new Execution(List.of("echo"), Map.of("A", "x".repeat(1 << 20)), null));
        assertThat(VALIDATOR.validate(spec)).extracting(ConstraintViolation::getMessage)
                .containsExactlyInAnyOrder("must be at most 65536 characters",
                        "must be at most 130942 bytes in UTF-8, the longest string a program is given");
    }

    @Test
    void eachBadFieldIsNamed() {
        assertThat(fieldsAtFault(spec("bad name!", Resources.of(1, 1), Execution.of("x")))).containsExactly("name");
        assertThat(fieldsAtFault(spec(null, Resources.of(1, 1), Execution.of("x")))).containsExactly("name");
        assertThat(fieldsAtFault(spec("a".repeat(129), Resources.of(1, 1), Execution.of("x")))).containsExactly("name");
        assertThat(fieldsAtFault(spec("n", null, Execution.of("x")))).containsExactly("resources");
        assertThat(fieldsAtFault(spec("n", new Resources(BigDecimal.ZERO, 1L, 0, null), Execution.of("x"))))
                .containsExactly("resources.cpu");
        assertThat(fieldsAtFault(spec("n", new Resources(new BigDecimal("0.0001"), 1L, 0, null), Execution.of("x"))))
                .containsExactly("resources.cpu");
        assertThat(fieldsAtFault(spec("n", new Resources(BigDecimal.ONE, -1L, -2, null), Execution.of("x"))))
                .containsExactly("resources.gpuCount", "resources.memoryMb");
        assertThat(fieldsAtFault(spec("n", new Resources(BigDecimal.ONE, null, 0, "H100|"), Execution.of("x"))))
                .containsExactly("resources.gpuType", "resources.memoryMb");
        assertThat(fieldsAtFault(spec("n", Resources.of(1, 1), new Execution(List.of(), null, null))))
                .containsExactly("execution.command");
        assertThat(fieldsAtFault(spec("n", Resources.of(1, 1), null))).containsExactly("execution");
        assertThat(fieldsAtFault(spec("n", Resources.of(1, 1), new Execution(List.of("x"), Map.of("1BAD", "v"), 0))))
                .containsExactly("execution.env<K>[1BAD].<map key>", "execution.timeoutSeconds");
    }

    @Test
    void priorityAndRetryRangesAreChecked() {
        JobSpec s = new JobSpec("n", null, 1001, Resources.of(1, 1), null, Execution.of("x"),
                new RetryPolicy(0, Arrays.asList(75, null, 300), -1, null), null);
        assertThat(fieldsAtFault(s)).containsExactly("priority", "retry.backoffSeconds", "retry.maxAttempts",
                "retry.retryOnExitCodes[1].<list element>", "retry.retryOnExitCodes[2].<list element>");
    }

    @Test
    void gpuTypeAlternativesAreSplit() {
        Resources r = Resources.of(1, 1).withGpus(2, "A100|H100");
        assertThat(fieldsAtFault(r)).isEmpty();
        assertThat(r.gpuTypes()).containsExactly("A100", "H100");
        assertThat(Resources.of(1, 1).gpuTypes()).isEmpty();
    }
}
