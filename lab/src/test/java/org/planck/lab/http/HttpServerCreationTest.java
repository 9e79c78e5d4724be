package org.planck.lab.http;

import com.sun.net.httpserver.HttpServer;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.Test;

import java.net.InetSocketAddress;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * Every HTTP server of the lab is made by {@link NoDelayHttpServer}. The JDK reads its
 * TCP_NODELAY switch once per process, when the first server is created: a single server made
 * directly with {@link HttpServer#create} before it turns the switch off for all of them, and
 * every request/answer pair of the loop then waits out a delayed ACK (this happened once: the
 * live view's server came up first and the notice path slowed from ~1 ms to ~40 ms per batch).
 */
public class HttpServerCreationTest {
    private static final JavaClasses LAB = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("org.planck.lab");

    @Test
    public void onlyNoDelayHttpServerCreatesServers() {
        ArchRule rule = noClasses().that().doNotHaveFullyQualifiedName(NoDelayHttpServer.class.getName())
                .should().callMethod(HttpServer.class, "create")
                .orShould().callMethod(HttpServer.class, "create", InetSocketAddress.class, int.class)
                .because("the JDK's TCP_NODELAY switch must be set before the first server exists");
        rule.check(LAB);
    }
}
