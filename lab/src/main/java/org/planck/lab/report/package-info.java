/**
 * Finishing a lab report directory: the live fabric view as headless Chromium recorded it
 * during the run, judged against the lab's move log, and an index of every file.
 */
package org.planck.lab.report;
