// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A hostile payer for lib/chain/gas-limit.test.ts: an ERC-1271 wallet that accepts any signature after burning
/// `burn` rounds of keccak inside isValidSignature, so a settlement of 0.01 USDC from it can cost millions of gas.
contract GasWallet {
    uint256 public immutable burn;
    constructor(uint256 b) { burn = b; }
    function isValidSignature(bytes32 h, bytes memory) external view returns (bytes4) {
        uint256 x = uint256(h);
        uint256 n = burn;
        for (uint256 i = 0; i < n; i++) { x = uint256(keccak256(abi.encode(x))); }
        if (x == 1) return 0xffffffff;
        return 0x1626ba7e;
    }
}
