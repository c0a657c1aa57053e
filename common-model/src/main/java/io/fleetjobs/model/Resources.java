package io.fleetjobs.model;

import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Digits;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;

/**
 * What one attempt holds on its machine. CPU is in cores with at most three decimals, so that it
 * is exact in millicores ({@link #cpuMillis()}), the unit that capacity is counted in.
 *
 * @param gpuType one type, or alternatives separated by {@code |} ({@code "A100|H100"}); null for any
 */
public record Resources(
        @NotNull @DecimalMin(value = "0", inclusive = false) @DecimalMax("100000")
        @Digits(integer = 6, fraction = 3, message = "must have at most 3 decimals") BigDecimal cpu,
        @NotNull @Positive @Max(1L << 40) Long memoryMb,
        @PositiveOrZero @Max(1024) Integer gpuCount,
        @Pattern(regexp = "[A-Za-z0-9_.-]{1,64}(\\|[A-Za-z0-9_.-]{1,64}){0,15}",
                message = "must be a GPU type or alternatives separated by |") String gpuType) {

    public Resources {
        cpu = cpu == null ? null : cpu.stripTrailingZeros();
        gpuCount = gpuCount == null ? 0 : gpuCount;
    }

    public static Resources of(double cpu, long memoryMb) {
        return new Resources(BigDecimal.valueOf(cpu), memoryMb, 0, null);
    }

    public Resources withGpus(int count, String type) {
        return new Resources(cpu, memoryMb, count, type);
    }

    public long cpuMillis() {
        return cpu.movePointRight(3).longValueExact();
    }

    /** The acceptable GPU types, empty for any. */
    public List<String> gpuTypes() {
        return gpuType == null ? List.of() : Arrays.asList(gpuType.split("\\|"));
    }
}
