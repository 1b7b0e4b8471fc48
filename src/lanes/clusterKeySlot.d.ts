/** `cluster-key-slot` (the slot function ioredis itself uses) ships no types. */
declare module 'cluster-key-slot' {
  /** The Redis Cluster hash slot (0..16383) of `key`: CRC16 of its hash tag, modulo 16384. */
  function calculateSlot(key: string | Buffer): number;
  export default calculateSlot;
}
