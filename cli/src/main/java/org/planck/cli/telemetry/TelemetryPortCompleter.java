package org.planck.cli.telemetry;

import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractChoicesCompleter;
import org.planck.api.telemetry.PortLoad;
import org.planck.api.telemetry.PortLoadService;

import java.util.List;
import java.util.stream.Collectors;

import static org.onosproject.cli.AbstractShellCommand.get;

/**
 * Completes ports that carry flows or are congested.
 */
@Service
public class TelemetryPortCompleter extends AbstractChoicesCompleter {
    @Override
    protected List<String> choices() {
        return get(PortLoadService.class).loads().stream()
                .map(PortLoad::port)
                .map(cp -> cp.deviceId() + "/" + cp.port().toLong())
                .sorted()
                .collect(Collectors.toList());
    }
}
