package org.planck.cli.te;

import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractChoicesCompleter;
import org.planck.api.te.TeMode;

import java.util.ArrayList;
import java.util.List;

/**
 * Completes TE mode names.
 */
@Service
public class TeModeCompleter extends AbstractChoicesCompleter {

    @Override
    protected List<String> choices() {
        List<String> modes = new ArrayList<>();
        for (TeMode m : TeMode.values()) {
            modes.add(m.name());
        }
        return modes;
    }
}
