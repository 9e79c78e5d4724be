package org.planck.app.admission;

import org.onosproject.net.DeviceId;
import org.onosproject.net.meter.DefaultMeter;
import org.onosproject.net.meter.Meter;
import org.onosproject.net.meter.MeterId;
import org.onosproject.net.meter.MeterRequest;
import org.onosproject.net.meter.MeterServiceAdapter;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A meter service whose switches either support meters (a meter is created and recorded) or
 * do not (submit returns null, as ONOS does when no meter id can be allocated).
 */
public class RecordingMeterService extends MeterServiceAdapter {
    final List<MeterRequest> submitted = new ArrayList<>();
    final List<MeterId> withdrawn = new ArrayList<>();
    final Set<DeviceId> withoutMeters = new HashSet<>();
    private long next = 1;

    @Override
    public Meter submit(MeterRequest request) {
        if (withoutMeters.contains(request.deviceId())) {
            return null;
        }
        submitted.add(request);
        return DefaultMeter.builder().forDevice(request.deviceId()).withId(MeterId.meterId(next++))
                .fromApp(request.appId()).withUnit(request.unit()).withBands(request.bands()).build();
    }

    @Override
    public void withdraw(MeterRequest request, MeterId meterId) {
        withdrawn.add(meterId);
    }
}
