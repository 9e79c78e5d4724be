package org.planck.lab.admission;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code java -cp planck-lab.jar org.planck.lab.admission.AdmissionPlanCommand request.json}:
 * prints the admission decisions of {@link AdmissionPlan} as JSON; a bad request exits 2 with one
 * line saying why.
 */
@Command(name = "admission-plan", mixinStandardHelpOptions = true,
        description = "Admit flows through one switch with the app's network calculus (JSON in, JSON out).")
public final class AdmissionPlanCommand implements Callable<Integer> {
    @Parameters(index = "0", description = "request JSON file")
    Path request;

    @Override
    public Integer call() throws Exception {
        String answer;
        try {
            answer = AdmissionPlan.decide(Files.readString(request));
        } catch (IllegalArgumentException e) {
            System.err.println("admission-plan: " + e.getMessage());
            return 2;
        }
        System.out.println(answer);
        return 0;
    }

    /**
     * Entry point.
     *
     * @param args arguments
     */
    public static void main(String[] args) {
        System.exit(new CommandLine(new AdmissionPlanCommand()).execute(args));
    }
}
