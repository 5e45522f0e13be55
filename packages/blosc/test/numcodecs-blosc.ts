// numcodecs' WebAssembly c-blosc, typed. numcodecs 0.3's declarations use extensionless relative
// imports that NodeNext resolution cannot follow, so its classes arrive untyped; this is the part
// of its Blosc codec the oracle tests use.
import { Blosc as UntypedBlosc } from "numcodecs";

export interface NumcodecsBlosc {
  encode(data: Uint8Array): Promise<Uint8Array>;
  decode(data: Uint8Array): Promise<Uint8Array>;
}

export const Blosc = UntypedBlosc as unknown as new (clevel: number, cname: string, shuffle: number, blocksize: number) => NumcodecsBlosc;
