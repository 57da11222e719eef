package org.vtvr;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The app's packages over its compiled classes (issue #46): none depends on a package that depends on it back, by any
 * path, so each can be read knowing only the ones below it; the route index, which knows every package's paths, sits
 * at the top ({@code web}), and the problem vocabulary ({@code error}) and the scenario vocabulary ({@code scenario})
 * at the bottom.
 */
class PackageCyclesTest {

    private static final JavaClasses APP = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("org.vtvr");

    @Test
    void noPackageDependsOnOneThatDependsOnItBack() {
        slices().matching("org.vtvr.(*)..").should().beFreeOfCycles().check(APP);
    }

    @Test
    void theVocabulariesDependOnNoPackageThatServesRequests() {
        noClasses().that().resideInAnyPackage("org.vtvr.error..", "org.vtvr.scenario..", "org.vtvr.api..")
                .should().dependOnClassesThat().resideInAnyPackage("org.vtvr.web..", "org.vtvr.http..",
                        "org.vtvr.floor..", "org.vtvr.ladder..", "org.vtvr.bare..", "org.vtvr.virtual..",
                        "org.vtvr.worker..", "org.vtvr.reactive..", "org.vtvr.blocking..", "org.vtvr.data..")
                .check(APP);
    }
}
