// Types of stripped-sources.js (plain JavaScript: the bin runs under any Node), for the benchmarks that import it.
export declare const SOURCES: string;
export declare const CACHE: string;
export declare const STRIPPED_SOURCES: unique symbol;
export declare function sourceFiles(sources: string): string[];
export declare function strippedPath(cache: string, source: string): string;
export declare function writeStripped(sources?: string, cache?: string): number;
export declare function useStrippedSources(sources?: string, cache?: string): boolean;
export declare function loadStrippedSources(byUrl: Map<string, string>): void;
