/**
 * {@code flexlog bench storage} and its JMH twin: FlexLog's replica storage against RocksDB run as
 * Boki runs it (the paper's baseline), on the same record sizes, threads, read share and
 * durability, in one process, with every read checked against what was written.
 *
 * <h2>Who talks to whom</h2>
 *
 * <ul>
 *   <li>{@link io.flexlog.bench.storage.StorageComparison} runs the command: {@code StorageCommand}
 *       ({@code io.flexlog.bench.cli}) hands it {@link io.flexlog.bench.storage.StorageSettings},
 *       with the engine resolved by {@link io.flexlog.bench.storage.EngineChoice} ({@code auto}
 *       falls back to the mapped-file engine with a notice, as the replica does). It runs the
 *       workload with {@link io.flexlog.bench.storage.StorageLoad} on each {@link
 *       io.flexlog.bench.storage.RecordStore} in turn, prints {@link
 *       io.flexlog.bench.storage.StorageReport} and removes the run's directory with {@code
 *       Directories} ({@code io.flexlog.bench.report}).
 *   <li>{@link io.flexlog.bench.storage.StorageBenchmark} is the same comparison under JMH (paper
 *       Fig. 5-7), not part of the command.
 *   <li>Stores: {@link io.flexlog.bench.storage.FlexLogStore} opens the replica module's storage
 *       ({@code StorageEngines}: llpl, mapped, or the tiered engine with off-heap cache and SSD
 *       segments) with one log per thread ({@code FlexLogRecordLog}: {@code appendPending}, {@code
 *       commit}, {@code flush} per record, as a replica with a batch of one); {@link
 *       io.flexlog.bench.storage.RocksDbStore} one shared RocksDB with Boki's options.
 *   <li>{@link io.flexlog.bench.storage.Workload} is one thread's mix of appends and reads over its
 *       {@link io.flexlog.bench.storage.RecordLog}, with records from {@link
 *       io.flexlog.bench.storage.RecordPattern}.
 * </ul>
 *
 * <p>Threading: the controlling thread starts one worker thread per benchmark thread ({@code
 * bench-<store>-N}) and moves them through preload, warm-up and measurement with a volatile phase
 * word; each FlexLog log has one owner thread, as a replica runs its log on its event loop, while
 * RocksDB's database is shared. A shutdown hook deletes the temporary directory on Ctrl-C.
 *
 * <p>Failures: an engine that fails ({@code StorageException}, an I/O error), a record read back
 * wrong, a run that measured nothing or a JSON file that cannot be written gives exit code 1; a bad
 * option exits 2, as does an explicit {@code llpl} this process cannot honour. Storage engines and
 * durability modes: {@code docs/architecture.md} ("Storage").
 */
package io.flexlog.bench.storage;
