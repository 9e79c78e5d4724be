package org.planck.cli;

import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractChoicesCompleter;
import org.planck.api.config.CollectorConfig;
import org.planck.api.config.PlanckConfigService;

import java.util.List;
import java.util.stream.Collectors;

import static org.onosproject.cli.AbstractShellCommand.get;

/**
 * Completes the ids of configured collectors.
 */
@Service
public class CollectorIdCompleter extends AbstractChoicesCompleter {

    @Override
    protected List<String> choices() {
        return choices(get(PlanckConfigService.class));
    }

    static List<String> choices(PlanckConfigService config) {
        return config.settings().map(s -> s.collectors().stream().map(CollectorConfig::id).sorted()
                .collect(Collectors.toList())).orElse(List.of());
    }
}
