import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';

/** A stored object as the API serves it (`metadata` always present). */
export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; uid: string; resourceVersion: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface WatchEvent {
  type: WatchEventType;
  object: ApiObject;
  resourceVersion: number;
}

/** How many past events a watch from an old `resourceVersion` can be replayed from (older: 410 Expired). */
const HISTORY = 1000;

/**
 * One kind of namespaced object (pods, network policies): one global `resourceVersion` counter as
 * etcd's revision, bumped on every write; a bounded history of events so a watch can start from a
 * given version; listeners for live watches.
 */
export class ObjectStore {
  private readonly objects = new Map<string, ApiObject>();
  private readonly history: WatchEvent[] = [];
  private readonly events = new EventEmitter();

  constructor(private readonly clock: { next(): number; current(): number }) {
    this.events.setMaxListeners(0);
  }

  get(namespace: string, name: string): ApiObject | undefined {
    return this.objects.get(`${namespace}/${name}`);
  }

  list(namespace: string | null): ApiObject[] {
    return [...this.objects.values()].filter((o) => namespace === null || o.metadata.namespace === namespace);
  }

  /** Stores a new object: uid, resourceVersion and creationTimestamp are set here. */
  add(object: ApiObject): ApiObject {
    object.metadata.uid = randomUUID();
    object.metadata.creationTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    return this.write('ADDED', object);
  }

  /** Replaces the stored object (same namespace/name) with a changed copy. */
  update(object: ApiObject): ApiObject {
    return this.write('MODIFIED', object);
  }

  remove(namespace: string, name: string): ApiObject | undefined {
    const object = this.get(namespace, name);
    if (!object) return undefined;
    this.objects.delete(`${namespace}/${name}`);
    return this.record('DELETED', { ...object, metadata: { ...object.metadata, resourceVersion: String(this.clock.next()) } });
  }

  /** Events after `resourceVersion`, or null when they are no longer kept (the watch must relist). */
  since(resourceVersion: number): WatchEvent[] | null {
    const oldest = this.history[0]?.resourceVersion;
    if (oldest !== undefined && resourceVersion < oldest - 1 && this.history.length >= HISTORY) return null;
    return this.history.filter((e) => e.resourceVersion > resourceVersion);
  }

  onEvent(listener: (event: WatchEvent) => void): () => void {
    this.events.on('event', listener);
    return () => this.events.off('event', listener);
  }

  private write(type: WatchEventType, object: ApiObject): ApiObject {
    object.metadata.resourceVersion = String(this.clock.next());
    this.objects.set(`${object.metadata.namespace}/${object.metadata.name}`, object);
    return this.record(type, object);
  }

  private record(type: WatchEventType, object: ApiObject): ApiObject {
    const event: WatchEvent = { type, object: structuredClone(object), resourceVersion: Number(object.metadata.resourceVersion) };
    this.history.push(event);
    if (this.history.length > HISTORY) this.history.shift();
    this.events.emit('event', event);
    return object;
  }
}
