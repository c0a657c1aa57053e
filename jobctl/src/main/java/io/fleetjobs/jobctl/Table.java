package io.fleetjobs.jobctl;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** Columns padded to their widest cell; an absent value prints as {@code -}. */
final class Table {
    private final List<String[]> rows = new ArrayList<>();

    Table(String... header) {
        rows.add(header);
    }

    Table row(Object... cells) {
        String[] row = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            row[i] = cells[i] == null || cells[i].toString().isEmpty() ? "-" : cells[i].toString();
        }
        rows.add(row);
        return this;
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
