package io.fleetjobs.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;

/**
 * The machine's credential, kept across the agent's restarts in {@code <work-dir>/<machine-id>/credential} (the
 * machine's own directory: several agents may share one work directory, as local mode's do): readable and
 * writable by the agent's uid only (0600), so no job (another uid, see "Isolation on the machine") reads it.
 * Written whole or not at all: a temporary file of the same directory, created 0600, synced, then renamed over
 * the old one, so a crash mid-write leaves the previous credential, never half of one.
 */
public final class CredentialFile {
    static final String NAME = "credential";
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private final Path file;
    /** Where an earlier version kept it, read while {@link #file} does not exist yet; null: nowhere. */
    private final Path earlier;

    public CredentialFile(Path file) {
        this(file, null);
    }

    private CredentialFile(Path file, Path earlier) {
        this.file = file;
        this.earlier = earlier;
    }

    /** Directly in {@code dir}. */
    public static CredentialFile in(Path dir) {
        return new CredentialFile(dir.resolve(NAME));
    }

    /**
     * In the machine's own directory of the work directory. Agents before this kept it at the top of the work
     * directory, where agents sharing one overwrote each other's (a restarted agent then presented another machine's
     * credential and its join was refused while its machine held attempts): a credential kept there is read until the
     * machine's own is written.
     */
    public static CredentialFile forMachine(Path workDir, String machineId) {
        return new CredentialFile(workDir.resolve(machineId).resolve(NAME), workDir.resolve(NAME));
    }

    public Path path() {
        return file;
    }

    /** The credential kept, if any; a file others could read is made the owner's only first. */
    public Optional<String> read() {
        if (earlier != null && !Files.exists(file)) {
            return new CredentialFile(earlier).read();
        }
        try {
            if (!Files.getPosixFilePermissions(file).equals(OWNER_ONLY)) {
                Files.setPosixFilePermissions(file, OWNER_ONLY);
            }
            String credential = Files.readString(file, StandardCharsets.UTF_8).strip();
            return credential.isEmpty() ? Optional.empty() : Optional.of(credential);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the machine's credential " + file, e);
        }
    }

    /** Keeps this credential in place of the one before, atomically. */
    public void write(String credential) {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = null;
        try {
            Files.createDirectories(dir);
            tmp = Files.createTempFile(dir, "." + NAME + "-", ".tmp", PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer bytes = ByteBuffer.wrap(credential.getBytes(StandardCharsets.UTF_8));
                while (bytes.hasRemaining()) {
                    out.write(bytes);
                }
                out.force(true);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
            tmp = null;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep the machine's credential in " + file, e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // a leftover temporary file, 0600: harmless
                }
            }
        }
    }
}
