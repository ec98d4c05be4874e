// Types of the SandboxManager surface this package implements (the subset
// of the reference's that agent frameworks use).

export interface NetworkConfig {
  allowedDomains: string[];
  deniedDomains: string[];
  [key: string]: unknown;
}

export interface FilesystemConfig {
  denyRead: Array<string | { path: string; literal?: boolean }>;
  allowWrite: Array<string | { path: string; literal?: boolean }>;
  denyWrite: Array<string | { path: string; literal?: boolean }>;
  allowRead?: Array<string | { path: string; literal?: boolean }>;
  disabled?: boolean;
  [key: string]: unknown;
}

export interface SandboxRuntimeConfig {
  network: NetworkConfig;
  filesystem: FilesystemConfig;
  ignoreViolations?: Record<string, string[]>;
  allowPty?: boolean;
  allowNestedUserNamespaces?: boolean;
  [key: string]: unknown;
}

/** Per-call overrides: the filesystem lists replace the sandbox's;
 * network.allowedDomains and allowPty are accepted. */
export interface CustomConfig {
  filesystem?: Partial<Pick<FilesystemConfig, 'allowWrite' | 'denyWrite' | 'denyRead' | 'allowRead' | 'disabled'>>;
  network?: { allowedDomains?: string[] };
  allowPty?: boolean;
  allowNestedUserNamespaces?: boolean;
}

export interface WrapWithSandboxOptions {
  /** attribution key (default: the command); empty means absent */
  commandId?: string;
  /** text for ignoreViolations and reports (default: the command) */
  commandText?: string;
}

export interface SandboxViolationEvent {
  line: string;
  command?: string;
  encodedCommand?: string;
  timestamp: Date;
}

export type SandboxAskCallback = (request: { host: string; port?: number }) =>
  Promise<boolean | { allow: false; reason?: string }>;

export declare class SandboxViolationStore {
  addViolation(event: SandboxViolationEvent): void;
  getViolations(limit?: number): SandboxViolationEvent[];
  getCount(): number;
  getTotalCount(): number;
  getViolationsForCommand(key: string): SandboxViolationEvent[];
  subscribe(listener: (events: SandboxViolationEvent[]) => void): () => void;
  clear(): void;
}

export declare class SandboxInitializeConflictError extends Error {
  code: 'initialize_conflict';
}

export interface SandboxDependencyCheck {
  errors: string[];
  warnings: string[];
}

export declare const SandboxManager: {
  /** Starts one srt-service (one proxy, one violation store). The ask
   * callback is asked about hosts on neither list (strictAllowlist off):
   * true allows, {allow: false, reason} denies with the reason, anything
   * else denies, a throw denies ("permission prompt failed"); no answer
   * within 30 s denies. Commands must run asynchronously (not spawnSync)
   * so this process can answer. */
  initialize(config: SandboxRuntimeConfig, askCallback?: SandboxAskCallback,
    enableLogMonitor?: boolean): Promise<void>;
  isSupportedPlatform(): boolean;
  isSandboxingEnabled(): boolean;
  checkDependencies(): SandboxDependencyCheck;
  checkDependenciesAsync(): Promise<SandboxDependencyCheck>;
  /** A shell command line that runs `command` in the sandbox. */
  wrapWithSandbox(command: string, binShell?: string, customConfig?: CustomConfig,
    abortSignal?: AbortSignal, options?: WrapWithSandboxOptions): Promise<string>;
  wrapWithSandboxArgv(command: string, binShell?: string, customConfig?: CustomConfig,
    abortSignal?: AbortSignal, cwd?: string, options?: WrapWithSandboxOptions):
    { argv: string[]; env: NodeJS.ProcessEnv };
  /** Replace the live settings; an invalid object throws and changes nothing. */
  updateConfig(newConfig: SandboxRuntimeConfig): void;
  registerCommandNetworkLists(commandId: string, lists: { allowedDomains?: string[] }): void;
  unregisterCommandNetworkLists(commandId: string): void;
  getSandboxViolationStore(): SandboxViolationStore;
  annotateStderrWithSandboxFailures(key: string, stderr: string): string;
  getConfig(): SandboxRuntimeConfig | undefined;
  cleanupAfterCommand(): void;
  reset(): Promise<void>;
  readonly askCallbackDenyReason: true;
};

export declare function encodeSandboxedCommand(key: string): string;
