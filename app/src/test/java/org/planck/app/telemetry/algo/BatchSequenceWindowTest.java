package org.planck.app.telemetry.algo;

import org.junit.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.Assert.assertEquals;

public class BatchSequenceWindowTest {

    private static long feed(BatchSequenceWindow w, long... seqs) {
        long lost = 0;
        for (long s : seqs) {
            lost += w.accept(s);
        }
        return lost;
    }

    @Test
    public void aLateBatchIsNotLostAndAMissingOneIsCountedOnceItLeavesTheWindow() {
        BatchSequenceWindow w = new BatchSequenceWindow();
        assertEquals(0, feed(w, 10, 11, 15, 13));
        assertEquals(1, w.late());
        assertEquals(2, w.missing()); // 12 and 14, still inside the window
        // 79 = 15 + 64: the whole old window leaves; 12 and 14 never came. 16..78 are the new
        // window's missing numbers, not yet lost.
        assertEquals(2, w.accept(79));
        assertEquals(63, w.missing());
        // 16 arrives late but inside the window: not lost.
        assertEquals(0, w.accept(16));
        assertEquals(2, w.late());
    }

    @Test
    public void aJumpPastTheWindowCountsTheNumbersThatNeverEnteredIt() {
        BatchSequenceWindow w = new BatchSequenceWindow();
        w.accept(0);
        // 1..99 missing: the new window is 37..100, so 1..36 are lost and 37..99 still owed.
        assertEquals(36, w.accept(100));
        assertEquals(63, w.missing());
        // 37 now arrives: not lost; 5 arrives: too late, already counted.
        assertEquals(0, w.accept(37) + w.accept(5));
        assertEquals(2, w.late());
    }

    @Test
    public void retriesAreDuplicatesNotLoss() {
        BatchSequenceWindow w = new BatchSequenceWindow();
        assertEquals(0, feed(w, 0, 1, 1, 2, 2, 2, 3));
        assertEquals(3, w.duplicates());
        assertEquals(0, w.late());
        assertEquals(0, w.missing());
    }

    @Test(expected = IllegalArgumentException.class)
    public void negativeNumbersAreRefused() {
        new BatchSequenceWindow().accept(-1);
    }

    /**
     * Against a plain model: a number is lost when the highest number seen first reaches it + 64
     * and it has not arrived by then. Random sequences with losses, reordering within and beyond
     * the window, and retries.
     */
    @Test
    public void agreesWithAPlainModelOnRandomSequences() {
        for (int seed = 1; seed <= 300; seed++) {
            Random r = new Random(seed);
            int n = 50 + r.nextInt(400);
            List<Long> order = new ArrayList<>();
            for (long s = r.nextInt(5); s < n; s++) {
                if (r.nextInt(10) > 0) {
                    order.add(s);
                }
                if (r.nextInt(20) == 0 && !order.isEmpty()) {
                    order.add(order.get(r.nextInt(order.size()))); // a retry
                }
            }
            // Move some batches later, most a few places, some past the window.
            for (int i = 0; i < order.size() / 5; i++) {
                int a = r.nextInt(order.size());
                int shift = r.nextInt(8) == 0 ? 70 + r.nextInt(60) : 1 + r.nextInt(6);
                int b = Math.min(order.size() - 1, a + shift);
                Collections.swap(order, a, b);
            }
            BatchSequenceWindow w = new BatchSequenceWindow();
            Set<Long> received = new HashSet<>();
            long first = -1;
            long highest = -1;
            long modelLost = 0;
            long lost = 0;
            for (long s : order) {
                lost += w.accept(s);
                if (first < 0) {
                    first = s;
                    highest = s;
                } else if (s > highest) {
                    // Numbers leaving the window: (highest - 64, s - 64], including those that never
                    // entered one; owed only from the first number on.
                    for (long x = Math.max(first, highest - BatchSequenceWindow.WINDOW + 1);
                         x <= s - BatchSequenceWindow.WINDOW; x++) {
                        if (!received.contains(x)) {
                            modelLost++;
                        }
                    }
                    // Numbers that never entered a window: (highest, s - 64].
                    for (long x = highest + 1; x <= s - BatchSequenceWindow.WINDOW; x++) {
                        if (x < Math.max(first, highest - BatchSequenceWindow.WINDOW + 1)) {
                            continue;
                        }
                    }
                    highest = s;
                }
                received.add(s);
                assertEquals("seed " + seed + " after " + s, modelLost, lost);
            }
        }
    }
}
