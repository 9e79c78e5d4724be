package org.planck.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.planck.api.MirrorService;
import org.planck.api.MirrorSession;
import org.planck.api.PlanckJson;

import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Lists mirror sessions.
 */
@Service
@Command(scope = "onos", name = "planck-mirrors",
        description = "Lists the switches mirrored into their mirror port, and in which mode")
public class MirrorsCommand extends AbstractShellCommand {

    @Override
    protected void doExecute() {
        MirrorService mirrors = get(MirrorService.class);
        if (outputJson()) {
            ArrayNode list = mapper().createArrayNode();
            sorted(mirrors).forEach(s -> list.add(PlanckJson.mirror(s, mapper())));
            print("%s", list);
        } else {
            lines(mirrors).forEach(l -> print("%s", l));
        }
    }

    private static List<MirrorSession> sorted(MirrorService mirrors) {
        return mirrors.sessions().stream().sorted(Comparator.comparing(s -> s.deviceId().toString()))
                .collect(Collectors.toList());
    }

    /**
     * The text the command prints.
     *
     * @param mirrors mirror service
     * @return lines, one per session
     */
    static List<String> lines(MirrorService mirrors) {
        List<MirrorSession> sessions = sorted(mirrors);
        if (sessions.isEmpty()) {
            return List.of("no mirror sessions (no switch has a configured mirror port)");
        }
        return sessions.stream().map(s -> String.format(
                "device=%s mirrorPort=%s rspanVlan=%s mode=%s state=%s monitoredPorts=%d%s",
                s.deviceId(), s.mirrorPort(), s.rspanVlan(), s.mode(), s.state(), s.monitoredPorts().size(),
                s.detail().isEmpty() ? "" : " (" + s.detail() + ")")).collect(Collectors.toList());
    }
}
