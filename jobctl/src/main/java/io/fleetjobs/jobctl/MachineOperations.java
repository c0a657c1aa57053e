package io.fleetjobs.jobctl;

import io.fleetjobs.sdk.model.Machine;
import io.fleetjobs.sdk.model.MachineOperationRequest;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code jobctl machines drain|cordon|uncordon MACHINE_ID --reason "…"}: an operator's word on a machine. */
final class MachineOperations {
    private MachineOperations() {
    }

    abstract static class Operation extends CommandBase {
        @Parameters(paramLabel = "MACHINE_ID")
        String id;

        @Option(names = "--reason", required = true, description = "Why (shown with the machine's status).")
        String reason;

        abstract String send(MachineOperationRequest request);

        @Override
        public Integer call() {
            String body = send(new MachineOperationRequest().reason(reason));
            if (json()) {
                printJson(body);
            } else {
                Machine m = read(body, Machine.class);
                out().println(m.getId() + " " + m.getStatus() + (m.getStatusReason() == null ? ""
                        : ": " + Table.printable(m.getStatusReason())));
                out().flush();
            }
            return JobCtl.OK;
        }
    }

    @Command(name = "drain", description = "Takes a machine out of placement for good; its running jobs finish.")
    static final class Drain extends Operation {
        @Override
        String send(MachineOperationRequest request) {
            return client().machines().drainMachineWithResponseSpec(id, request).body(String.class);
        }
    }

    @Command(name = "cordon", description = "Takes a machine out of placement for a while; its running jobs go on.")
    static final class Cordon extends Operation {
        @Override
        String send(MachineOperationRequest request) {
            return client().machines().cordonMachineWithResponseSpec(id, request).body(String.class);
        }
    }

    @Command(name = "uncordon", description = "Puts a drained or cordoned machine back into placement.")
    static final class Uncordon extends Operation {
        @Override
        String send(MachineOperationRequest request) {
            return client().machines().uncordonMachineWithResponseSpec(id, request).body(String.class);
        }
    }
}
