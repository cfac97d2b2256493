package io.flexlog.testcontainers;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A container test: it runs only where Docker runs and the FlexLog image of this build exists
 * ({@link DockerAvailable}); elsewhere it is skipped with the reason, or fails when the build
 * requires Docker ({@code -Dflexlog.docker.required=true}, as .ci/run sets).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(DockerAvailable.class)
public @interface DockerTest {}
