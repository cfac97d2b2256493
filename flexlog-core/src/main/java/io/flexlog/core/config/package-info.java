/**
 * Config registries: each component declares its settings once as {@link
 * io.flexlog.core.config.ConfigKey}s (name, type, default, rule, doc, importance) in a {@link
 * io.flexlog.core.config.ConfigDef}, in one naming style per file kind (dotted client properties,
 * dashed cluster-file sections). The client's registry is {@code ClientConfigDef}, the cluster
 * file's {@code ClusterFileDef}; they parse raw settings into {@link
 * io.flexlog.core.config.ConfigValues}, from which each component builds its typed config objects,
 * and they render {@code docs/configuration.md}. Every error is a {@link
 * io.flexlog.core.config.ConfigException} naming the key as the user wrote it. Nothing here runs
 * after start-up.
 */
package io.flexlog.core.config;
