package org.planck.cli.telemetry;

import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractChoicesCompleter;
import org.planck.api.telemetry.FlowRecord;
import org.planck.api.telemetry.FlowStateService;

import java.util.List;
import java.util.TreeSet;
import java.util.ArrayList;

import static org.onosproject.cli.AbstractShellCommand.get;

/**
 * Completes the addresses of hosts that source or sink live flows.
 */
@Service
public class FlowHostCompleter extends AbstractChoicesCompleter {
    @Override
    protected List<String> choices() {
        TreeSet<String> hosts = new TreeSet<>();
        for (FlowRecord r : get(FlowStateService.class).flows()) {
            hosts.add(r.flow().src().toString());
            hosts.add(r.flow().dst().toString());
        }
        return new ArrayList<>(hosts);
    }
}
