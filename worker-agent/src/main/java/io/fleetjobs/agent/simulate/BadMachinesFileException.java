package io.fleetjobs.agent.simulate;

/** The machines file is not as the simulator needs it; names the line (1 is the header) and the field at fault. */
public final class BadMachinesFileException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final int line;
    private final String field;

    BadMachinesFileException(String source, int line, String field, String problem) {
        super(source + " line " + line + (field == null ? "" : ", field " + field) + ": " + problem);
        this.line = line;
        this.field = field;
    }

    public int line() {
        return line;
    }

    /** The field at fault, or null when the whole line is (a wrong number of fields, a bad header). */
    public String field() {
        return field;
    }
}
