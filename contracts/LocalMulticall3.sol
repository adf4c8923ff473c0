// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/**
 * @title LocalMulticall3
 * @notice A local-chain stand-in for Multicall3 (deployed at 0xcA11bde05977b3631167028862bE2a173976CA11
 *         on public EVM chains) with the part x402's exact-EVM facilitator reads through: the
 *         `tryAggregate` batch of calls, plus `getBlockNumber`. anvil has no Multicall3, so the local
 *         chain setup places this contract's runtime code at that address.
 */
contract LocalMulticall3 {
    struct Call {
        address target;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    /// @notice Run each call; with requireSuccess, revert when one fails, else report each outcome.
    function tryAggregate(bool requireSuccess, Call[] calldata calls) public payable returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool success, bytes memory ret) = calls[i].target.call(calls[i].callData);
            if (requireSuccess) require(success, "Multicall3: call failed");
            returnData[i] = Result(success, ret);
        }
    }

    function getBlockNumber() public view returns (uint256 blockNumber) {
        blockNumber = block.number;
    }
}
