package org.planck.cli;

import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractChoicesCompleter;
import org.planck.api.PlanckJson;
import org.planck.api.ShadowRouteService;

import java.util.List;
import java.util.stream.Collectors;

import static org.onosproject.cli.AbstractShellCommand.get;

/**
 * Completes the MACs of the hosts Planck routes.
 */
@Service
public class RoutedHostCompleter extends AbstractChoicesCompleter {

    @Override
    protected List<String> choices() {
        return choices(get(ShadowRouteService.class));
    }

    static List<String> choices(ShadowRouteService routes) {
        return routes.plan().map(p -> p.graph().hosts().stream().map(h -> PlanckJson.mac(h.mac())).sorted()
                .collect(Collectors.toList())).orElse(List.of());
    }
}
