/**
 * Testcontainers support for FlexLog: {@link io.flexlog.testcontainers.FlexLogContainer} runs the
 * FlexLog image's dev cluster for tests (docs/testing.md#container-tests).
 */
package io.flexlog.testcontainers;
