package org.planck.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.planck.api.config.PlanckConfigService;
import org.planck.api.config.PlanckSettings;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Shows the configuration in force.
 */
@Service
@Command(scope = "onos", name = "planck-config",
        description = "Shows the Planck configuration in force and the last rejected one's reason")
public class ConfigCommand extends AbstractShellCommand {

    @Override
    protected void doExecute() {
        lines(get(PlanckConfigService.class), mapper()).forEach(l -> print("%s", l));
    }

    /**
     * The text the command prints.
     *
     * @param config config service
     * @param mapper mapper for the JSON rendering
     * @return lines
     */
    static List<String> lines(PlanckConfigService config, ObjectMapper mapper) {
        List<String> out = new ArrayList<>();
        Optional<PlanckSettings> s = config.settings();
        if (s.isEmpty()) {
            out.add("Planck is not configured");
        } else {
            PlanckSettings p = s.get();
            out.add(String.format("congestionThresholdPct=%s hysteresisPct=%s shadowPathsPerDestination=%d "
                            + "teEnabled=%s rerouteDampingMs=%d flowReportIntervalMs=%d collectors=%d",
                    p.congestionThresholdPct(), p.hysteresisPct(), p.shadowPathsPerDestination(), p.teEnabled(),
                    p.rerouteDampingMs(), p.flowReportIntervalMs(), p.collectors().size()));
            try {
                out.add(mapper.writerWithDefaultPrettyPrinter().writeValueAsString(p.json()));
            } catch (JsonProcessingException e) {
                out.add(p.json().toString());
            }
        }
        config.lastRejection().ifPresent(r -> out.add("last rejected configuration: " + r));
        return out;
    }
}
