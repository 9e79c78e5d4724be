package org.planck.cli.te;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.planck.api.te.TeMode;
import org.planck.api.te.TeService;

/**
 * Shows or sets the traffic-engineering mode.
 */
@Service
@Command(scope = "onos", name = "planck-te-mode",
        description = "Shows the traffic-engineering mode, or sets it (STATIC, POLL, PLANCK)")
public class TeModeCommand extends AbstractShellCommand {

    @Argument(index = 0, name = "mode", description = "STATIC, POLL or PLANCK", required = false)
    @Completion(TeModeCompleter.class)
    String mode = null;

    @Override
    protected void doExecute() {
        try {
            print("%s", run(get(TeService.class), mode));
        } catch (IllegalArgumentException e) {
            error("%s", e.getMessage());
        }
    }

    /**
     * Sets the mode if one is given, then describes the mode in force.
     *
     * @param te   TE service
     * @param mode mode name, or null to only show
     * @return one line
     * @throws IllegalArgumentException if the name is not a mode (nothing changes)
     */
    static String run(TeService te, String mode) {
        if (mode != null) {
            TeMode m = TeMode.parse(mode).orElseThrow(() -> new IllegalArgumentException(
                    "unknown mode " + mode + ": expected STATIC, POLL or PLANCK"));
            te.setMode(m);
        }
        String line = "mode=" + te.mode();
        if (!te.teEnabled()) {
            line += " (requested " + te.requestedMode() + "; teEnabled=false in the network config forces STATIC)";
        }
        return line;
    }
}
