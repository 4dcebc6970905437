import type { DataSource } from 'typeorm';

/** A MySQL/MariaDB server's InnoDB buffer pool beside the tables a read goes through. */
export interface BufferPoolFit {
  poolBytes: number;
  /** The tables' data and indexes, as the server estimates them. */
  tableBytes: number;
}

/**
 * {@link BufferPoolFit} of `tables` in the connection's database. A read by index over tables
 * that do not fit in the pool fetches most of its pages from disk each time, so its time says
 * more about the server than about the query: a caller explains a slow read with it.
 */
export async function bufferPoolFit(
  dataSource: DataSource,
  tables: readonly string[],
): Promise<BufferPoolFit> {
  const [row] = await dataSource.query<{ pool: number | string; tables: number | string | null }[]>(
    'SELECT @@innodb_buffer_pool_size AS pool, (SELECT SUM(data_length + index_length) ' +
      'FROM information_schema.tables WHERE table_schema = DATABASE() ' +
      `AND table_name IN (${tables.map(() => '?').join(', ')})) AS tables`,
    [...tables],
  );
  return { poolBytes: Number(row.pool), tableBytes: Number(row.tables ?? 0) };
}

/** Bytes as the larger binary unit that keeps a whole number in front: "128 MiB", "2.4 GiB". */
export function binaryBytes(bytes: number): string {
  if (bytes >= 2 ** 30) return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
  return `${Math.round(bytes / 2 ** 20)} MiB`;
}
