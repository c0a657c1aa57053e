package io.fleetjobs.jobctl;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Columns padded to their widest cell; an absent value prints as {@code -}. A cell's control characters print as
 * {@code \xNN} ({@link #printable}): what a table shows may come from a tenant (a job's command, a reason), and an
 * escape sequence sent to the terminal as it is could set the clipboard of the admin who reads it, or rewrite the screen.
 */
final class Table {
    private final List<String[]> rows = new ArrayList<>();

    Table(String... header) {
        rows.add(header);
    }

    Table row(Object... cells) {
        String[] row = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            row[i] = cells[i] == null || cells[i].toString().isEmpty() ? "-" : printable(cells[i].toString());
        }
        rows.add(row);
        return this;
    }

    /** The text with each C0 or C1 control character and DEL as {@code \xNN}, on one line. */
    static String printable(String text) {
        if (text.chars().noneMatch(Table::control)) {
            return text;
        }
        StringBuilder shown = new StringBuilder(text.length() + 16);
        text.chars().forEach(c -> shown.append(control(c) ? "\\x%02x".formatted(c) : Character.toString(c)));
        return shown.toString();
    }

    private static boolean control(int c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f);
    }

    void print(PrintWriter out) {
        int columns = rows.getFirst().length;
        int[] width = new int[columns];
        for (String[] row : rows) {
            for (int i = 0; i < columns; i++) {
                width[i] = Math.max(width[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                line.append(row[i]);
                if (i < columns - 1) {
                    line.append(" ".repeat(width[i] - row[i].length() + 2));
                }
            }
            out.println(line.toString().stripTrailing());
        }
        out.flush();
    }
}
