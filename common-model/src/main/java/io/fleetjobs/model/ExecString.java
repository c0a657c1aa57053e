package io.fleetjobs.model;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.nio.charset.StandardCharsets;

/**
 * A string that Linux can hand to a program: an argument, or the value of a variable, whose UTF-8 with its NUL (and a
 * variable's {@code NAME=}, up to 129 bytes) fits the 128 KiB that exec takes for one string (MAX_ARG_STRLEN). A
 * limit in characters cannot say it: 65,536 characters of "é" are 131,072 bytes, and such a job could never start.
 */
@Target(ElementType.TYPE_USE)
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = ExecString.Check.class)
public @interface ExecString {
    /** Bytes of UTF-8 at most: an argument's; a variable's value leaves room for its name. */
    int maxBytes() default ARGUMENT_BYTES;

    /** An argument's most bytes: 128 KiB less its NUL. */
    int ARGUMENT_BYTES = 128 * 1024 - 1;
    /** A variable's value's most bytes: an argument's less the longest {@code NAME=} (128 characters and "="). */
    int VALUE_BYTES = ARGUMENT_BYTES - 129;

    String message() default "must be at most {maxBytes} bytes in UTF-8, the longest string a program is given";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    /** Checks the length in UTF-8 (null is another constraint's to refuse). */
    final class Check implements ConstraintValidator<ExecString, String> {
        private int maxBytes;

        @Override
        public void initialize(ExecString annotation) {
            maxBytes = annotation.maxBytes();
        }

        @Override
        public boolean isValid(String value, ConstraintValidatorContext context) {
            // at most 3 bytes a character: only a string longer than a third of the bound needs encoding
            return value == null || value.length() <= maxBytes / 3
                    || value.getBytes(StandardCharsets.UTF_8).length <= maxBytes;
        }
    }
}
