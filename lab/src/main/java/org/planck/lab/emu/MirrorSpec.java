package org.planck.lab.emu;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.net.DeviceId;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * One switch's oversubscribed mirror port in a {@code PUT /v1/mirrors} body.
 */
public final class MirrorSpec {
    private final DeviceId device;
    private final int rspanVlan;
    private final long rateBps;
    private final long bufferBytes;
    private final int snapLen;

    /**
     * A mirror.
     *
     * @param device      switch
     * @param rspanVlan   VLAN of its samples, 1-4094
     * @param rateBps     mirror port rate
     * @param bufferBytes mirror port buffer
     * @param snapLen     bytes of each frame written
     */
    public MirrorSpec(DeviceId device, int rspanVlan, long rateBps, long bufferBytes, int snapLen) {
        this.device = checkNotNull(device, "device");
        checkArgument(rspanVlan >= 1 && rspanVlan <= 4094, "RSPAN VLAN out of range: %s", rspanVlan);
        checkArgument(rateBps > 0 && bufferBytes > 0 && snapLen >= 64, "mirror rate, buffer and snapLen");
        this.rspanVlan = rspanVlan;
        this.rateBps = rateBps;
        this.bufferBytes = bufferBytes;
        this.snapLen = snapLen;
    }

    public DeviceId device() {
        return device;
    }

    public int rspanVlan() {
        return rspanVlan;
    }

    public long rateBps() {
        return rateBps;
    }

    /**
     * JSON of the mirror.
     *
     * @param mapper mapper
     * @return object
     */
    public ObjectNode toJson(ObjectMapper mapper) {
        ObjectNode n = mapper.createObjectNode();
        n.put("switch", device.toString());
        n.put("rspanVlan", rspanVlan);
        n.put("rateBps", rateBps);
        n.put("bufferBytes", bufferBytes);
        n.put("snapLen", snapLen);
        return n;
    }
}
