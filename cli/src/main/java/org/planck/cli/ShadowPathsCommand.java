package org.planck.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onlab.packet.MacAddress;
import org.onosproject.cli.AbstractShellCommand;
import org.planck.api.PlanckJson;
import org.planck.api.ShadowRouteService;
import org.planck.api.fabric.FabricHost;
import org.planck.api.fabric.ShadowPath;
import org.planck.api.fabric.ShadowTree;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Shows the shadow-MAC paths toward a host.
 */
@Service
@Command(scope = "onos", name = "planck-paths",
        description = "Shows the shadow-MAC trees toward a host, and the paths from a source host")
public class ShadowPathsCommand extends AbstractShellCommand {

    @Argument(index = 0, name = "host", description = "Destination host MAC", required = true)
    @Completion(RoutedHostCompleter.class)
    String host = null;

    @Option(name = "-s", aliases = "--src", description = "Source host MAC: also list its paths to the host")
    @Completion(RoutedHostCompleter.class)
    String src = null;

    @Override
    protected void doExecute() {
        ShadowRouteService routes = get(ShadowRouteService.class);
        try {
            if (outputJson()) {
                print("%s", json(routes, host, src, mapper()));
            } else {
                lines(routes, host, src).forEach(l -> print("%s", l));
            }
        } catch (IllegalArgumentException e) {
            error("%s", e.getMessage());
        }
    }

    private static MacAddress mac(String text) {
        return HostMacs.parse(text).orElseThrow(() -> new IllegalArgumentException("malformed MAC address: " + text));
    }

    private static FabricHost routed(ShadowRouteService routes, MacAddress mac) {
        return routes.host(mac).orElseThrow(() -> new IllegalArgumentException("unknown host " + mac));
    }

    /**
     * The text the command prints.
     *
     * @param routes shadow route service
     * @param host   destination MAC argument
     * @param src    source MAC option, or null
     * @return lines
     * @throws IllegalArgumentException naming a malformed or unknown host
     */
    static List<String> lines(ShadowRouteService routes, String host, String src) {
        MacAddress dst = mac(host);
        FabricHost h = routed(routes, dst);
        List<ShadowTree> trees = routes.trees(dst);
        List<String> out = new ArrayList<>();
        out.add(String.format("host %s at %s, %d shadow tree(s)", PlanckJson.mac(dst), h.location(), trees.size()));
        for (ShadowTree t : trees) {
            out.add(String.format("  tree %d  shadowMac=%s  switches=%d  sources=%d", t.index(),
                    PlanckJson.mac(t.shadowMac()), t.nextLinks().size() + 1, t.sources().size()));
        }
        if (src != null) {
            MacAddress s = mac(src);
            FabricHost from = routed(routes, s);
            Optional<ShadowPath> chosen = routes.chosenPath(s, dst);
            out.add(String.format("from %s at %s, default path %s", PlanckJson.mac(s), from.location(),
                    chosen.map(p -> String.valueOf(p.index())).orElse("none (same edge switch)")));
            for (ShadowPath p : routes.paths(s, dst)) {
                out.add(String.format("  path %d  shadowMac=%s  %s", p.index(), PlanckJson.mac(p.shadowMac()),
                        p.hops().stream().map(Object::toString).collect(Collectors.joining(" -> "))));
            }
        }
        return out;
    }

    static ObjectNode json(ShadowRouteService routes, String host, String src, ObjectMapper mapper) {
        MacAddress dst = mac(host);
        ObjectNode root = mapper.createObjectNode();
        root.set("host", PlanckJson.host(routed(routes, dst), mapper));
        ArrayNode trees = root.putArray("trees");
        routes.trees(dst).forEach(t -> trees.add(PlanckJson.tree(t, mapper)));
        if (src != null) {
            MacAddress s = mac(src);
            root.set("source", PlanckJson.host(routed(routes, s), mapper));
            ArrayNode paths = root.putArray("paths");
            routes.paths(s, dst).forEach(p -> paths.add(PlanckJson.path(p, mapper)));
            routes.chosenPath(s, dst).ifPresent(p -> root.put("chosenIndex", p.index()));
        }
        return root;
    }
}
