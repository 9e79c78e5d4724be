package org.planck.app;

import org.onosproject.mastership.MastershipListener;
import org.onosproject.mastership.MastershipServiceAdapter;
import org.onosproject.net.DeviceId;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Mastership for tests: this node masters every device except those marked as mastered elsewhere.
 */
public class TestMastership extends MastershipServiceAdapter {
    private final Set<DeviceId> elsewhere = ConcurrentHashMap.newKeySet();
    final List<MastershipListener> listeners = new CopyOnWriteArrayList<>();

    public void masteredElsewhere(DeviceId id) {
        elsewhere.add(id);
    }

    @Override
    public boolean isLocalMaster(DeviceId deviceId) {
        return !elsewhere.contains(deviceId);
    }

    @Override
    public void addListener(MastershipListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeListener(MastershipListener listener) {
        listeners.remove(listener);
    }
}
