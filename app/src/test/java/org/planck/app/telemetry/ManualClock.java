package org.planck.app.telemetry;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock that moves only when told to.
 */
public class ManualClock extends Clock {
    private volatile long millis;

    public ManualClock(long millis) {
        this.millis = millis;
    }

    public void advanceMillis(long delta) {
        millis += delta;
    }

    @Override
    public long millis() {
        return millis;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis);
    }
}
